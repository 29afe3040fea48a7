/**
 * Real peers for tests (PostgreSQL, Mosquitto, …). Locally a missing broker or Redis skips the tests
 * that need it; with CI=true a missing peer is a failure, never a silent skip. PostgreSQL is never
 * missing: a package's vitest globalSetup starts one when TEST_DATABASE_URL is unset.
 */
import { createConnection } from 'node:net';

export const isCI = () => /^(1|true|yes)$/i.test(process.env.CI ?? '');

const DEFAULTS: Record<string, string> = {
  TEST_MQTT_URL: 'mqtt://127.0.0.1:1883',
  TEST_REDIS_URL: 'redis://127.0.0.1:6379',
};

/** Whether something listens at host:port, within timeoutMs. */
export function reachable(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host, port });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/**
 * The URL of a peer from its TEST_* variable (or the machine default), or null when it does not
 * answer. Under CI a missing peer throws, so the suite fails instead of skipping.
 */
export async function peerUrl(name: 'TEST_MQTT_URL' | 'TEST_REDIS_URL'): Promise<string | null> {
  const url = process.env[name] ?? DEFAULTS[name]!;
  const u = new URL(url);
  const defaultPort = u.protocol.startsWith('redis') ? 6379 : 1883;
  const ok = await reachable(u.hostname, Number(u.port || defaultPort));
  if (ok) return url;
  if (isCI()) throw new Error(`${name} peer not reachable at ${u.host}; CI requires it`);
  return null;
}

/**
 * The PostgreSQL server tests create their databases on (a superuser URL). Set by CI, or by the
 * package's vitest globalSetup, which starts a throwaway server when it is unset.
 */
export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url)
    throw new Error(
      'TEST_DATABASE_URL is unset: run the tests through vitest, whose globalSetup starts PostgreSQL',
    );
  return url;
}
