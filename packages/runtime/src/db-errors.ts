/**
 * Whether an error means the database cannot be reached right now (server down, restarting, out of
 * connections), as opposed to a bad query. Drivers and ORMs wrap the socket error, so the cause
 * chain is searched.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE_UNAVAILABLE.test(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
/** SQLSTATE class 08 (connection exception), 57P01–57P03 (shutdown, crash, cannot connect now), 53300 (too many connections). */
const SQLSTATE_UNAVAILABLE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;
const UNAVAILABLE_MESSAGE =
  /connection terminated|timeout exceeded when trying to connect|connection timeout|the database system is (starting up|shutting down|in recovery mode)/i;

export const DATABASE_UNAVAILABLE_DETAIL = 'The database is unavailable; try again shortly';

interface DatabaseError {
  code: string;
  message: string;
  table?: string;
  column?: string;
  constraint?: string;
}

/** The PostgreSQL error in an error's cause chain (SQLSTATE code), if any. */
function databaseCause(err: unknown): DatabaseError | null {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof message === 'string')
      return e as DatabaseError;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** Whether an error in the chain carries an SQL statement or its parameters (ORMs wrap the driver's). */
function carriesQuery(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    if ('params' in e || 'query' in e) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * What a log line may say about an error. A failed query's error carries the statement and its
 * parameters (user text, password hashes, channel secrets) in its message and fields, and the server's
 * `detail` quotes values too: for those, only the SQLSTATE code, the server's message and the names of
 * the table, column and constraint. Any other error keeps its message and stack.
 */
export function loggableError(err: unknown): Record<string, unknown> {
  const db = databaseCause(err);
  if (db || carriesQuery(err)) {
    return {
      type: err instanceof Error ? err.name : typeof err,
      code: db?.code,
      message: db?.message ?? 'database query failed',
      table: db?.table,
      column: db?.column,
      constraint: db?.constraint,
    };
  }
  if (err instanceof Error) return { type: err.name, message: err.message, stack: err.stack };
  return { message: String(err) };
}

/**
 * SQLSTATE class 22, data exception: the value a client sent is one PostgreSQL cannot store (a NUL
 * character in text, an unsupported escape, a number out of range). The client's mistake, so a 422.
 */
export function invalidDataDetail(err: unknown): string | null {
  const db = databaseCause(err);
  if (!db?.code.startsWith('22')) return null;
  // 22021: invalid byte sequence (0x00); 22P05: \u0000 in JSON text cannot be stored.
  if (db.code === '22021' || db.code === '22P05' || /0x00|\\u0000/.test(db.message))
    return 'Text must not contain the NUL character (U+0000)';
  return `Invalid value: ${db.message}`;
}
