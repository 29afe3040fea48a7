import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peerUrl } from '@outpost/runtime/testing';
import postgres from 'postgres';
import { type Database, openDatabase } from '../../src/db/connection.js';

export interface TestDatabase {
  name: 'pglite' | 'postgres';
  /** Opens (and migrates) the database; may be called again to reopen the same one. */
  open(): Promise<Database>;
  /** Drops what the test created. */
  cleanup(): Promise<void>;
  /** PostgreSQL only: runs SQL on the server's admin connection (to make the database unavailable). */
  admin?: (query: string) => Promise<void>;
  dbName?: string;
}

/** A PGlite database in a fresh temp directory. */
export function pgliteTestDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'controller-pglite-'));
  return {
    name: 'pglite',
    open: () => openDatabase({ dataDir: dir }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A fresh PostgreSQL database per test run (dropped after), or null when no server answers locally. */
export async function postgresTestDatabase(): Promise<TestDatabase | null> {
  const base = await peerUrl('TEST_DATABASE_URL');
  if (!base) return null;
  const name = `controller_test_${randomBytes(5).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    name: 'postgres',
    dbName: name,
    admin: async (query: string) => {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(query);
      } finally {
        await a.end();
      }
    },
    open: () => openDatabase({ databaseUrl: url.toString() }),
    cleanup: async () => {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/** PostgreSQL when it answers (fast to create), PGlite otherwise. */
export async function anyTestDatabase(): Promise<TestDatabase> {
  return (await postgresTestDatabase()) ?? pgliteTestDatabase();
}
