import { connect } from 'node:net';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { DATABASE_UNAVAILABLE_DETAIL, isDatabaseUnavailable } from '../src/db-errors.js';

/** A real ECONNREFUSED from a loopback port nobody listens on. */
function refused(): Promise<Error> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port: 1 });
    sock.on('error', (err) => resolve(err));
  });
}

const sqlError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('recognises a refused connection, also wrapped by an ORM', async () => {
    const err = await refused();
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isDatabaseUnavailable(new Error('Failed query: select 1', { cause: err }))).toBe(true);
  });

  it('recognises server shutdown, recovery and connection exceptions', () => {
    expect(
      isDatabaseUnavailable(sqlError('57P01', 'terminating connection due to administrator command')),
    ).toBe(true);
    expect(isDatabaseUnavailable(sqlError('08006', 'connection failure'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('the database system is starting up'))).toBe(true);
  });

  it('leaves query bugs and other errors alone', () => {
    expect(isDatabaseUnavailable(sqlError('42601', 'syntax error at or near "selec"'))).toBe(false);
    expect(isDatabaseUnavailable(sqlError('23505', 'duplicate key value'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});

describe('createApp error mapping', () => {
  it('a database outage answers 503 with a detail; any other failure stays a 500 without internals', async () => {
    const app = createApp({ service: 'demo', version: '1', logger: pino({ level: 'silent' }) });
    const cause = await refused();
    app.get('/api/down', () => {
      throw new Error('Failed query: select * from runs', { cause });
    });
    app.get('/api/bug', () => {
      throw sqlError('42601', 'syntax error');
    });
    const down = await app.request('/api/down');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ detail: DATABASE_UNAVAILABLE_DETAIL });
    const bug = await app.request('/api/bug');
    expect(bug.status).toBe(500);
    expect(await bug.json()).toEqual({ detail: 'Internal server error' });
  });
});
