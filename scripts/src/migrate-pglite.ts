import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { DatabaseRole } from './database-roles.js';

export { pgliteFolders } from './database-roles.js';

/**
 * Earlier versions kept each service's data in PGlite under DATA_DIR/<service>. This copies it, once, into
 * the embedded PostgreSQL the launcher now runs: the service's own migrations create its tables (as its
 * own role, so it owns them), every row and sequence is copied in one transaction per service, the counts
 * are checked, and only then is the old folder renamed, never deleted. Anything unexpected rolls back and
 * leaves the folder where it was, so the next start tries again and no run history is lost.
 */

export type Role = DatabaseRole;

export class MigrationError extends Error {}

export interface PgliteMigration {
  role: Role;
  /** Rows copied per table. */
  tables: Record<string, number>;
  /** Where the PGlite folder went. */
  keptAt: string;
}

export interface MigrateOptions {
  dataDir: string;
  roles: Role[];
  /** The service's own login (it must own what its migrations create). */
  roleUrl: (role: Role) => string;
  /** A superuser login, to copy with the foreign keys' triggers held until the commit. */
  adminUrl: string;
  /** services/<role>/drizzle of this installation. */
  migrationsFolder: (role: Role) => string;
  /** A suffix for the kept folder; the date by default. */
  stamp?: string;
}

const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;

export async function migratePglite(opts: MigrateOptions): Promise<PgliteMigration[]> {
  let PGlite: typeof import('@electric-sql/pglite').PGlite;
  try {
    ({ PGlite } = await import('@electric-sql/pglite'));
  } catch {
    throw new MigrationError(
      'reading it needs @electric-sql/pglite, which this installation lacks: run npm install in the Outpost folder',
    );
  }
  const done: PgliteMigration[] = [];
  const stamp = opts.stamp ?? new Date().toISOString().slice(0, 10);
  for (const role of opts.roles) {
    const dir = join(opts.dataDir, role);
    let source: InstanceType<typeof PGlite>;
    try {
      source = await PGlite.create(dir);
    } catch (err) {
      throw new MigrationError(`DATA_DIR/${role} could not be opened: ${(err as Error).message}`);
    }
    try {
      const fresh = !(await hasMigrated(opts.roleUrl(role), role));
      await createTables(opts.roleUrl(role), opts.migrationsFolder(role), role);
      const tables = await copySchema(source, opts.adminUrl, role, fresh);
      await source.close();
      const keptAt = `${dir}.pglite-${stamp}`;
      renameSync(dir, keptAt);
      done.push({ role, tables, keptAt });
    } finally {
      if (!source.closed) await source.close();
    }
  }
  return done;
}

/** The service has already set up its schema here (it ran against this server before). */
async function hasMigrated(url: string, role: Role): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const table = `${ident(role)}.${ident('__drizzle_migrations')}`;
    const { rows } = await client.query('SELECT to_regclass($1) AS t', [table]);
    if (!rows[0]?.t) return false;
    const applied = await client.query(`SELECT count(*)::int AS n FROM ${table}`);
    return applied.rows[0].n > 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function createTables(url: string, migrationsFolder: string, role: Role): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrate(drizzle(pool), { migrationsFolder, migrationsSchema: role });
  } finally {
    await pool.end();
  }
}

interface Source {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/**
 * `fresh`: the schema was created by this upgrade, so rows already in a table are the defaults its
 * migrations seed (the maintenance items); the earlier version's own rows replace them. Otherwise any
 * row there is data of this version, and the copy stops rather than mix the two.
 */
async function copySchema(
  source: Source,
  adminUrl: string,
  schema: Role,
  fresh: boolean,
): Promise<Record<string, number>> {
  const { rows: tables } = await source.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> '__drizzle_migrations'
      ORDER BY table_name`,
    [schema],
  );
  const { rows: sequences } = await source.query<{ name: string }>(
    'SELECT sequence_name AS name FROM information_schema.sequences WHERE sequence_schema = $1',
    [schema],
  );
  const target = new pg.Client({ connectionString: adminUrl });
  target.on('error', () => undefined);
  await target.connect();
  const counts: Record<string, number> = {};
  try {
    await target.query('BEGIN');
    // Rows go in table by table, not in foreign-key order: they were consistent where they came from, and
    // in the replica role the foreign keys' triggers do not fire. The role ends with the transaction.
    await target.query("SET LOCAL session_replication_role = 'replica'");
    for (const { name } of tables) {
      const qualified = `${ident(schema)}.${ident(name)}`;
      const present = await target.query('SELECT to_regclass($1) AS t', [qualified]);
      if (!present.rows[0]?.t) throw new MigrationError(`table ${schema}.${name} is not in this version`);
      const already = await target.query(`SELECT count(*)::int AS n FROM ${qualified}`);
      if (already.rows[0].n > 0) {
        if (!fresh) throw new MigrationError(`PostgreSQL already holds rows in ${schema}.${name}`);
        await target.query(`DELETE FROM ${qualified}`);
      }
      // JSON keeps every type's text form, and json_populate_recordset reads it back by column name.
      const { rows } = await source.query<{ j: string; n: number }>(
        `SELECT coalesce(json_agg(t), '[]')::text AS j, count(*)::int AS n FROM ${qualified} t`,
      );
      const n = rows[0]?.n ?? 0;
      if (n > 0) {
        await target.query(
          `INSERT INTO ${qualified} OVERRIDING SYSTEM VALUE
             SELECT * FROM json_populate_recordset(null::${qualified}, $1::json)`,
          [rows[0]!.j],
        );
      }
      const copied = await target.query(`SELECT count(*)::int AS n FROM ${qualified}`);
      if (copied.rows[0].n !== n)
        throw new MigrationError(`${schema}.${name}: ${copied.rows[0].n} rows copied of ${n}`);
      counts[name] = n;
    }
    for (const { name } of sequences) {
      const qualified = `${ident(schema)}.${ident(name)}`;
      const { rows } = await source.query<{ last_value: string | number; is_called: boolean }>(
        `SELECT last_value, is_called FROM ${qualified}`,
      );
      const seq = rows[0];
      if (seq) await target.query('SELECT setval($1, $2, $3)', [qualified, seq.last_value, seq.is_called]);
    }
    await target.query('COMMIT');
    return counts;
  } catch (err) {
    await target.query('ROLLBACK').catch(() => undefined);
    throw err instanceof MigrationError ? err : new MigrationError((err as Error).message);
  } finally {
    await target.end().catch(() => undefined);
  }
}
