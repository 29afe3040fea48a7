import { fileURLToPath } from 'node:url';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { createPgPool, pingPool } from '@outpost/runtime/pg-pool';
import * as schema from './schema.js';
import type { Statement } from './batch-statement.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  /** A statement built by the caller, straight to the driver, prepared once per connection. */
  query(statement: Statement): Promise<Record<string, unknown>[]>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The committed drizzle-kit migrations (services/controller/drizzle), from src/ and from dist/. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));
const MIGRATIONS_SCHEMA = 'controller';

export interface OpenOptions {
  databaseUrl: string;
  migrate?: boolean;
}

/** Opens the database and applies the migrations. */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const migrateNow = opts.migrate ?? true;
  // node-postgres rather than postgres.js, which (3.4.9) can crash the process from a timer when the
  // server restarts.
  const pool = createPgPool(opts.databaseUrl);
  const db = drizzle(pool, { schema });
  try {
    if (migrateNow)
      await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER, migrationsSchema: MIGRATIONS_SCHEMA });
  } catch (err) {
    await pool.end();
    throw err;
  }
  return {
    db: db as unknown as Db,
    query: async ({ name, text, params }) => (await pool.query({ name, text, values: params })).rows,
    ping: () => pingPool(pool),
    close: () => pool.end(),
  };
}
