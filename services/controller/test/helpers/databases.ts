import { randomBytes } from 'node:crypto';
import { testDatabaseUrl } from '@outpost/runtime/testing';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connection.js';

export interface TestDatabase {
  /** The database's own URL, for openDatabase or a spawned service's DATABASE_URL. */
  url: string;
  dbName: string;
  /** Opens (and migrates) the database; may be called again to reopen the same one. */
  open(): Promise<Database>;
  /** Drops what the test created. */
  cleanup(): Promise<void>;
  /** Runs SQL on the server's admin connection (to make the database unavailable). */
  admin(query: string): Promise<void>;
}

/** A fresh database on the test server (TEST_DATABASE_URL), dropped by cleanup(). */
export async function testDatabase(): Promise<TestDatabase> {
  const base = testDatabaseUrl();
  const name = `controller_test_${randomBytes(5).toString('hex')}`;
  const admin = async (query: string) => {
    const a = new pg.Client({ connectionString: base });
    await a.connect();
    try {
      await a.query(query);
    } finally {
      await a.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dbName: name,
    admin,
    open: () => openDatabase({ databaseUrl: url.toString() }),
    cleanup: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/**
 * One fresh database for a test file: created and migrated before its tests, closed and dropped after.
 * Answers a getter, as the database exists only once the file's tests run.
 */
export function useTestDatabase(): () => Database {
  let tdb: TestDatabase | undefined;
  let database: Database | undefined;
  beforeAll(async () => {
    tdb = await testDatabase();
    database = await tdb.open();
  }, 30_000);
  afterAll(async () => {
    await database?.close();
    await tdb?.cleanup();
  });
  return () => {
    if (!database) throw new Error('the test database is opened in beforeAll');
    return database;
  };
}
