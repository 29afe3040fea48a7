import pg from 'pg';
import { DATABASE_ROLES, type DatabaseRole } from './database-roles.js';
import { DATABASE_NAME, DatabaseError } from './embedded-db.js';

// The PostgreSQL client's side of the embedded server: loaded only in a one-shot child or a test.

export interface ProvisionInput {
  port: number;
  /** The superuser's password, and each service role's. */
  password: string;
  roles: Record<DatabaseRole, string>;
  deadline: number;
}

export async function connectAsSuperuser(port: number, password: string, database: string, deadline: number) {
  for (;;) {
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new DatabaseError(`PostgreSQL did not accept connections: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The database, and for each data-owning service a login role that owns a schema of its name. */
export async function provision(input: ProvisionInput): Promise<void> {
  const { port, password, deadline } = input;
  const admin = await connectAsSuperuser(port, password, 'postgres', deadline);
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (!exists.rowCount) await admin.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } finally {
    await admin.end();
  }
  const db = await connectAsSuperuser(port, password, DATABASE_NAME, deadline);
  try {
    await db.query(`REVOKE ALL ON DATABASE ${DATABASE_NAME} FROM PUBLIC`);
    for (const role of DATABASE_ROLES) {
      const found = await db.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
      const verb = found.rowCount ? 'ALTER' : 'CREATE';
      // The password follows secrets.json on every start, so the file stays the one source.
      const { rows } = await db.query('SELECT format($1, $2::text, $3::text) AS sql', [
        `${verb} ROLE %I LOGIN PASSWORD %L`,
        role,
        input.roles[role],
      ]);
      await db.query(rows[0].sql);
      // CREATE too: drizzle's migrator says CREATE SCHEMA IF NOT EXISTS even for a schema that exists.
      await db.query(`GRANT CONNECT, CREATE ON DATABASE ${DATABASE_NAME} TO ${role}`);
      await db.query(`CREATE SCHEMA IF NOT EXISTS ${role} AUTHORIZATION ${role}`);
    }
  } finally {
    await db.end();
  }
}
