import { randomBytes } from 'node:crypto';
import { testDatabaseUrl } from '@outpost/runtime/testing';
import pg from 'pg';

/** A fresh database on the test server (TEST_DATABASE_URL), dropped by `drop`. */
export async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = testDatabaseUrl();
  const name = `notifier_test_${randomBytes(5).toString('hex')}`;
  await admin(base, `create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin(base, `drop database if exists ${name} with (force)`);
    },
  };
}

async function admin(url: string, query: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(query);
  } finally {
    await client.end();
  }
}
