import { startThrowawayServer } from '@outpost/scripts/embedded-db';

/**
 * One PostgreSQL server for the whole run when TEST_DATABASE_URL is unset (CI sets it to the machine's
 * server). Test workers are started after this and inherit the variable.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const server = await startThrowawayServer();
  process.env.TEST_DATABASE_URL = server.url;
  return async () => {
    delete process.env.TEST_DATABASE_URL;
    await server.stop();
  };
}
