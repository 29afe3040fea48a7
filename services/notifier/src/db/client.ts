import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
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

/** Opens the database and brings the `notifier` schema up to date. */
export async function openDatabase(databaseUrl: string): Promise<NotifierDatabase> {
  const client = postgres(databaseUrl, { max: 5, onnotice: () => {} });
  const db = drizzle(client, { schema });
  try {
    await migrate(db, MIGRATION_CONFIG);
  } catch (err) {
    await client.end({ timeout: 1 });
    throw err;
  }
  return {
    db: db as unknown as Db,
    ping: () => ping(db as unknown as Db),
    close: () => client.end({ timeout: 5 }),
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
