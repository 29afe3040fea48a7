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
