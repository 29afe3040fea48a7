import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres';
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema.js';
import type { Statement } from './batch-statement.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** A statement built by the caller, straight to the driver; on PostgreSQL prepared once per connection. */
  query(statement: Statement): Promise<Record<string, unknown>[]>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The committed drizzle-kit migrations (services/controller/drizzle), from src/ and from dist/. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));
const MIGRATIONS_SCHEMA = 'controller';

export interface OpenOptions {
  /** PostgreSQL; when unset, PGlite under dataDir. */
  databaseUrl?: string;
  /** PGlite data directory; 'memory://' for a throwaway database. */
  dataDir?: string;
  migrate?: boolean;
}

/** Opens the database and applies the migrations. */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const migrateNow = opts.migrate ?? true;
  if (opts.databaseUrl) {
    // node-postgres: a server restart surfaces as query errors and 'error' events on idle clients,
    // which the pool survives (postgres.js 3.4.9 can crash the process from a timer in that case).
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 5,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 60_000,
      query_timeout: 30_000,
    });
    pool.on('error', () => {
      // An idle client lost its server; the pool replaces it on the next query.
    });
    pool.on('connect', (client) => {
      // A checked-out client whose server goes away fails its query; its 'error' event must not crash us.
      client.on('error', () => {});
    });
    const db = drizzlePostgres(pool, { schema });
    try {
      if (migrateNow)
        await migratePostgres(db, {
          migrationsFolder: MIGRATIONS_FOLDER,
          migrationsSchema: MIGRATIONS_SCHEMA,
        });
    } catch (err) {
      await pool.end();
      throw err;
    }
    return {
      db: db as unknown as Db,
      kind: 'postgres',
      query: async ({ name, text, params }) => (await pool.query({ name, text, values: params })).rows,
      ping: () => ping(db as unknown as Db),
      close: () => pool.end(),
    };
  }
  const dir = opts.dataDir ?? 'memory://';
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const client = new PGlite(dir);
  const db = drizzlePglite(client, { schema });
  if (migrateNow)
    await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER, migrationsSchema: MIGRATIONS_SCHEMA });
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    query: async ({ text, params }) => (await client.query<Record<string, unknown>>(text, params)).rows,
    ping: () => ping(db as unknown as Db),
    close: () => client.close(),
  };
}

/** PGlite lives under DATA_DIR/controller. */
export const pgliteDir = (dataDir: string): string => join(dataDir, 'controller');

async function ping(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}
