import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import * as schema from './schema.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface NotifierDatabase {
  db: Db;
  kind: 'pglite' | 'postgres';
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

export interface OpenOptions {
  /** PostgreSQL; unset: PGlite. */
  databaseUrl?: string | undefined;
  /** PGlite directory; unset with no databaseUrl: in memory (tests). */
  pgliteDir?: string | undefined;
}

/** Opens the database and brings the `notifier` schema up to date. */
export async function openDatabase(opts: OpenOptions): Promise<NotifierDatabase> {
  if (opts.databaseUrl) {
    const client = postgres(opts.databaseUrl, { max: 5, onnotice: () => {} });
    const db = drizzlePostgres(client, { schema });
    try {
      await migratePostgres(db, MIGRATION_CONFIG);
    } catch (err) {
      await client.end({ timeout: 1 });
      throw err;
    }
    return {
      db: db as unknown as Db,
      kind: 'postgres',
      ping: () => ping(db as unknown as Db),
      close: () => client.end({ timeout: 5 }),
    };
  }
  if (opts.pgliteDir) mkdirSync(opts.pgliteDir, { recursive: true });
  const client = opts.pgliteDir ? new PGlite(opts.pgliteDir) : new PGlite();
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, MIGRATION_CONFIG);
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    ping: () => ping(db as unknown as Db),
    close: () => client.close(),
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
