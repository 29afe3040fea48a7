import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { type RunningServer, serveApp } from '@outpost/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { ADMIN, type TestApp, testApp, type TestAppOptions } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';

/**
 * GET /api/generator/state over a real socket, where serveApp answers it from Node's request ahead of
 * Hono (FastReads): the same answer as the routes give, every check of the gateway on it, a
 * revocation or a state change seen by the very next request, and each request counted once by
 * the rate limit whichever path answers it.
 */

let tdb: TestDatabase;
let database: Database;
let t: TestApp | undefined;
let srv: RunningServer | undefined;

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
}, 60_000);
afterAll(async () => {
  await database.close();
  await tdb.cleanup();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await srv?.close();
  await t?.close();
  srv = undefined;
  t = undefined;
});

async function serve(gateway: TestAppOptions['gateway'] = {}): Promise<RunningServer> {
  t = await testApp(database, { gateway });
  srv = await serveApp(t.app, { port: 0, host: '127.0.0.1' });
  return srv;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect JSON bodies freely
  body: any;
}

function send(
  server: RunningServer,
  path: string,
  opts: { method?: string; token?: string | null; body?: unknown } = {},
): Promise<Reply> {
  const data = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const token = opts.token === undefined ? t?.token : opts.token;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: server.port,
        method: opts.method ?? 'GET',
        path,
        agent: false,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(data ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => {
          let body: unknown = null;
          try {
            body = JSON.parse(text);
          } catch {
            body = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const STATE = '/api/generator/state';
/** The same operation with an (empty) query string: not the fast read's exact target, so Hono answers it. */
const STATE_VIA_ROUTES = '/api/generator/state?';

/** Counts the requests the fast read answered itself. */
function countFastAnswers(app: TestApp['app']): { answered: number } {
  const seen = { answered: 0 };
  const serveFast = app.fastReads.serve.bind(app.fastReads);
  vi.spyOn(app.fastReads, 'serve').mockImplementation((req, res) => {
    const done = serveFast(req, res);
    if (done) seen.answered += 1;
    return done;
  });
  return seen;
}

const withoutDate = (h: IncomingHttpHeaders) => {
  const { date: _date, ...rest } = h;
  return rest;
};

describe('GET /api/generator/state ahead of Hono', () => {
  it('answers with the routes’ own status, headers and body', async () => {
    const s = await serve();
    const fast = countFastAnswers(t!.app);
    const viaRoutes = await send(s, STATE_VIA_ROUTES);
    const direct = await send(s, STATE);
    expect(fast.answered).toBe(1);
    expect(direct.status).toBe(200);
    expect(direct.text).toBe(viaRoutes.text);
    expect(withoutDate(direct.headers)).toEqual(withoutDate(viaRoutes.headers));
    expect(direct.headers['content-type']).toBe('application/json');
    expect(direct.headers['x-content-type-options']).toBe('nosniff');
    expect(direct.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(direct.body).toMatchObject({ armed: false, running: false });
  });

  it('a change of state is in the very next answer', async () => {
    const s = await serve();
    expect((await send(s, STATE)).body.armed).toBe(false);
    expect((await send(s, '/api/generator/arm', { method: 'POST', body: {} })).status).toBe(200);
    expect((await send(s, STATE)).body.armed).toBe(true);
    expect((await send(s, '/api/generator/disarm', { method: 'POST', body: {} })).status).toBe(200);
    expect((await send(s, STATE)).body.armed).toBe(false);
  });

  it('refuses a missing or bad token with the gateway’s 401', async () => {
    const s = await serve();
    const missing = await send(s, STATE, { token: null });
    expect(missing).toMatchObject({ status: 401, body: { detail: 'Not authenticated' } });
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
    const bad = await send(s, STATE, { token: 'abc.def.ghi' });
    expect(bad).toMatchObject({ status: 401, body: { detail: 'Invalid or expired token' } });
    expect(bad.headers['www-authenticate']).toBe('Bearer');
  });

  it('a token new to the process is verified, then answered', async () => {
    const s = await serve();
    const login = await send(s, '/api/auth/login', { method: 'POST', body: ADMIN, token: null });
    const fresh = login.body.access_token as string;
    expect(fresh).not.toBe(t!.token);
    expect((await send(s, STATE, { token: fresh })).status).toBe(200);
    expect((await send(s, STATE, { token: fresh })).status).toBe(200);
  });

  it('a logged-out token is refused at the next read, though it was answered a moment before', async () => {
    const s = await serve();
    const fast = countFastAnswers(t!.app);
    for (let i = 0; i < 3; i++) expect((await send(s, STATE)).status).toBe(200);
    expect(fast.answered).toBe(3);
    expect((await send(s, '/api/auth/logout', { method: 'POST' })).status).toBe(200);
    const after = await send(s, STATE);
    expect(after).toMatchObject({ status: 401, body: { detail: 'Invalid or expired token' } });
    expect(after.headers['www-authenticate']).toBe('Bearer');
  });

  it('a password change ends every other session at its next read', async () => {
    const s = await serve();
    const other = (await send(s, '/api/auth/login', { method: 'POST', body: ADMIN, token: null })).body
      .access_token as string;
    expect((await send(s, STATE, { token: other })).status).toBe(200);
    expect((await send(s, STATE, { token: other })).status).toBe(200);
    const changed = await send(s, '/api/auth/password', {
      method: 'POST',
      body: { current_password: ADMIN.password, new_password: 'a-long-new-password' },
    });
    expect(changed.status).toBe(200);
    expect((await send(s, STATE, { token: other })).status).toBe(401);
    // Back to the shared password for the suites that log in after this one.
    const again = await send(s, '/api/auth/login', {
      method: 'POST',
      body: { username: ADMIN.username, password: 'a-long-new-password' },
      token: null,
    });
    await send(s, '/api/auth/password', {
      method: 'POST',
      token: again.body.access_token,
      body: { current_password: 'a-long-new-password', new_password: ADMIN.password },
    });
  });

  it('a token is refused from its expiry on', async () => {
    const s = await serve();
    expect((await send(s, STATE)).status).toBe(200);
    t!.clock.advance(7 * 86400 * 1000 + 1000);
    expect(await send(s, STATE)).toMatchObject({ status: 401, body: { detail: 'Invalid or expired token' } });
  });

  it('a client off the allowlist gets 403', async () => {
    const s = await serve({ allowedIps: '10.0.0.0/8' });
    const res = await send(s, STATE);
    expect(res).toMatchObject({ status: 403, body: { detail: 'Forbidden: client address not allowed' } });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('the /api limit counts each request once, answered here or by the routes', async () => {
    const s = await serve({ rateLimits: { apiPerSecond: 30, authPerMinute: 5 } });
    // 20 without a token (left to the routes, which answer 401) and 11 with one, at once: 30 get an
    // answer and exactly one is limited. Counted twice, the 401s alone would use up the limit.
    const replies = await Promise.all([
      ...Array.from({ length: 20 }, () => send(s, STATE, { token: null })),
      ...Array.from({ length: 11 }, () => send(s, STATE)),
    ]);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]?.body).toEqual({ detail: 'Too many requests' });
    expect(limited[0]?.headers['retry-after']).toBe('1');
    expect(replies.filter((r) => r.status === 401).length).toBeGreaterThanOrEqual(19);
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(10);
  });

  it('is timed into the HTTP histogram under its route', async () => {
    const s = await serve();
    const count = async () => {
      const text = (await send(s, '/metrics', { token: null })).text;
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_request_duration_seconds_count{') &&
            l.includes('method="GET"') &&
            l.includes(`route="${STATE}"`) &&
            l.includes('status="200"'),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await count();
    for (let i = 0; i < 4; i++) await send(s, STATE);
    expect(await count()).toBe(before + 4);
  });
});
