import pg from 'pg';

/**
 * The PostgreSQL pool every service with a database uses. node-postgres survives a server restart: it
 * surfaces as query errors and 'error' events on idle clients, which the handlers below absorb (a
 * dropped client is replaced on the next query) instead of failing the process.
 */
export function createPgPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
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
  return pool;
}

/** True when the server answers a trivial query now (the /health `database` field). */
export async function pingPool(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query('select 1');
    return true;
  } catch {
    return false;
  }
}
