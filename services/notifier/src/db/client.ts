import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface NotifierDatabase {
  db: Db;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The committed migrations, next to src/ and dist/. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));
const MIGRATION_CONFIG = {
  migrationsFolder: MIGRATIONS_FOLDER,
  migrationsSchema: 'notifier',
  migrationsTable: '__drizzle_migrations',
};

/**
 * Opens the database and brings the `notifier` schema up to date. node-postgres, as in the controller:
 * one driver for the whole system, and a pool that survives the server going away (a dropped idle
 * client is replaced on the next query instead of failing the process).
 */
export async function openDatabase(databaseUrl: string): Promise<NotifierDatabase> {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 5,
    connectionTimeoutMillis: 5000,
    // Each open connection is a PostgreSQL backend of ~18 MB; a burst's extra ones close soon after.
    idleTimeoutMillis: 10_000,
    query_timeout: 30_000,
  });
  pool.on('error', () => {
    // An idle client lost its server; the pool replaces it on the next query.
  });
  pool.on('connect', (client) => {
    // A checked-out client whose server goes away fails its query; its 'error' event must not crash us.
    client.on('error', () => {});
  });
  const db = drizzle(pool, { schema });
  try {
    await migrate(db, MIGRATION_CONFIG);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return {
    db: db as unknown as Db,
    ping: () => ping(db as unknown as Db),
    close: () => pool.end(),
  };
}

async function ping(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}
