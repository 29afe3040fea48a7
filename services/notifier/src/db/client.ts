import { fileURLToPath } from 'node:url';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { createPgPool, pingPool } from '@outpost/runtime/pg-pool';
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

/** Opens the database and brings the `notifier` schema up to date, on the runtime's shared pool. */
export async function openDatabase(databaseUrl: string): Promise<NotifierDatabase> {
  const pool = createPgPool(databaseUrl);
  const db = drizzle(pool, { schema });
  try {
    await migrate(db, MIGRATION_CONFIG);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return {
    db: db as unknown as Db,
    ping: () => pingPool(pool),
    close: () => pool.end(),
  };
}
