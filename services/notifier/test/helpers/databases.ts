import { randomBytes } from 'node:crypto';
import { testDatabaseUrl } from '@outpost/runtime/testing';
import postgres from 'postgres';

/** A fresh database on the test server (TEST_DATABASE_URL), dropped by `drop`. */
export async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = testDatabaseUrl();
  const name = `notifier_test_${randomBytes(5).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
