import { request as httpRequest } from 'node:http';
import { type RunningServer, serveApp } from '@outpost/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { DEFAULT_RATE_LIMITS } from '../../src/gateway/network.js';
import { ADMIN, type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';

/**
 * Allowlist and rate limits over real sockets, from distinct loopback client addresses (127.0.0.1,
 * 127.0.0.2, ::1), covering what test/gateway/security.test.ts does not: forged X-Forwarded-For from
 * a peer that is not a trusted proxy, and limits kept per client so one noisy client cannot lock out
 * another.
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
  await srv?.close();
  await t?.close();
  srv = undefined;
  t = undefined;
});

async function serve(
  gateway: { allowedIps?: string; trustedProxies?: string } = {},
  host = '127.0.0.1',
): Promise<RunningServer> {
  t = await testApp(database, { gateway: { rateLimits: DEFAULT_RATE_LIMITS, ...gateway } });
  srv = await serveApp(t.app, { port: 0, host });
  return srv;
}

interface Reply {
  status: number;
  body: { detail?: string; access_token?: string } | null;
  retryAfter: string | undefined;
}

/** One HTTP request from a chosen local address, so the server sees that address as the peer. */
function send(
  server: RunningServer,
  opts: {
    from?: string;
    host?: string;
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: unknown;
  },
): Promise<Reply> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: opts.host ?? '127.0.0.1',
        port: server.port,
        method: opts.method ?? 'GET',
        path: opts.path,
        localAddress: opts.from,
        agent: false,
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => {
          let parsed: Reply['body'] = null;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = null;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, retryAfter: res.headers['retry-after'] });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const badLogin = (s: RunningServer, from?: string, headers?: Record<string, string>) =>
  send(s, {
    from,
    method: 'POST',
    path: '/api/auth/login',
    body: { username: ADMIN.username, password: 'not-the-password' },
    headers,
  });

const goodLogin = (s: RunningServer, from?: string, headers?: Record<string, string>) =>
  send(s, { from, method: 'POST', path: '/api/auth/login', body: ADMIN, headers });

describe('allowlist: forged X-Forwarded-For', () => {
  it('from a peer that is not a trusted proxy, every forged header is ignored on every path', async () => {
    const s = await serve({ allowedIps: '10.0.0.0/8, 192.168.1.7' });
    const token = t!.token;
    const forged = [
      '10.1.2.3',
      '192.168.1.7',
      '10.1.2.3, 192.168.1.7',
      '127.0.0.1, 10.1.2.3',
      '::ffff:10.1.2.3',
      '[10.1.2.3]',
    ];
    for (const xff of forged) {
      for (const header of ['x-forwarded-for', 'x-real-ip', 'forwarded']) {
        const value = header === 'forwarded' ? `for=${xff.split(',')[0]}` : xff;
        for (const path of ['/health', '/api/generator/state', '/api/auth/login', '/api/openapi.json']) {
          const res = await send(s, {
            path,
            headers: { [header]: value, authorization: `Bearer ${token}` },
          });
          expect(res.status, `${header}: ${value} on ${path}`).toBe(403);
          expect(res.body).toEqual({ detail: 'Forbidden: client address not allowed' });
        }
      }
    }
  });

  it('behind a trusted proxy, a client cannot smuggle an allowed address in front of its real one', async () => {
    const s = await serve({ allowedIps: '10.0.0.0/8', trustedProxies: '127.0.0.1' });
    // The client sent "X-Forwarded-For: 10.1.2.3"; the proxy appended the real client, 203.0.113.9.
    expect(
      (await send(s, { path: '/health', headers: { 'x-forwarded-for': '10.1.2.3, 203.0.113.9' } })).status,
    ).toBe(403);
    // An unparseable hop is not trusted: the peer (the proxy itself, not on the list) decides.
    expect((await send(s, { path: '/health', headers: { 'x-forwarded-for': 'banana' } })).status).toBe(403);
    expect(
      (await send(s, { path: '/health', headers: { 'x-forwarded-for': '10.9.9.9, banana' } })).status,
    ).toBe(403);
    // The genuine case still works: the proxy forwarded an allowed client.
    expect(
      (await send(s, { path: '/health', headers: { 'x-forwarded-for': '203.0.113.9, 10.1.2.3' } })).status,
    ).toBe(200);
  });

  it('a peer not on the trusted list cannot act as a proxy even when the trusted proxy is', async () => {
    const s = await serve({ allowedIps: '10.0.0.0/8', trustedProxies: '127.0.0.1' });
    // 127.0.0.2 is neither allowed nor trusted: its X-Forwarded-For is ignored.
    const res = await send(s, {
      from: '127.0.0.2',
      path: '/health',
      headers: { 'x-forwarded-for': '10.1.2.3' },
    });
    expect(res.status).toBe(403);
    // 127.0.0.1 is trusted: the same header from it lets the forwarded client in.
    expect((await send(s, { path: '/health', headers: { 'x-forwarded-for': '10.1.2.3' } })).status).toBe(200);
  });

  it('on a dual-stack listener IPv4 clients match IPv4 ranges and ::1 matches only when listed', async () => {
    const s = await serve({ allowedIps: '127.0.0.1' }, '::');
    expect((await send(s, { host: '127.0.0.1', path: '/health' })).status).toBe(200);
    expect((await send(s, { host: '::1', path: '/health' })).status).toBe(403);
    await srv!.close();
    await t!.close();
    const both = await serve({ allowedIps: '127.0.0.1, ::1' }, '::');
    expect((await send(both, { host: '::1', path: '/health' })).status).toBe(200);
    expect((await send(both, { from: '127.0.0.2', path: '/health' })).status).toBe(403);
  });
});

describe('rate limits: per client, and not bypassed by forged headers', () => {
  it('rotating X-Forwarded-For from an untrusted peer does not reset the /api/auth limit', async () => {
    const s = await serve();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await badLogin(s, undefined, { 'x-forwarded-for': `198.51.100.${i + 1}` });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('rotating X-Forwarded-For from an untrusted peer does not escape the /api per-second limit', async () => {
    const s = await serve();
    const token = t!.token;
    // 100 at once: each would be a fresh client if the header were believed, so none would be limited.
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        send(s, {
          path: '/api/generator/state',
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `198.51.100.${i + 1}` },
        }),
      ),
    );
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]?.body).toEqual({ detail: 'Too many requests' });
    expect(results.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
  });

  it('session checks and logouts are not logins: GET /api/auth/me is never held to the login limit', async () => {
    const s = await serve();
    const auth = { authorization: `Bearer ${t!.token}` };
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await send(s, { path: '/api/auth/me', headers: auth })).status);
    expect(statuses).toEqual(Array(8).fill(200));
    // Nor do they use up the client's login attempts.
    for (let i = 0; i < 5; i++) expect((await badLogin(s)).status).toBe(401);
    expect((await badLogin(s)).status).toBe(429);
    expect((await send(s, { path: '/api/auth/me', headers: auth })).status).toBe(200);
  });

  it('only a password attempt counts: past the login limit a wrong method is still 405 and a password change without a session 401', async () => {
    const s = await serve();
    // Neither of these tries a password, so neither uses up an attempt.
    for (let i = 0; i < 6; i++) {
      expect((await send(s, { method: 'DELETE', path: '/api/auth/login' })).status).toBe(405);
      const change = { current_password: 'x'.repeat(10), new_password: 'y'.repeat(12) };
      expect((await send(s, { method: 'POST', path: '/api/auth/password', body: change })).status).toBe(401);
    }
    for (let i = 0; i < 5; i++) expect((await badLogin(s)).status).toBe(401);
    expect((await badLogin(s)).status).toBe(429);
    // The limit reached: what the document says of the others still holds.
    expect((await send(s, { method: 'DELETE', path: '/api/auth/login' })).status).toBe(405);
    expect((await send(s, { method: 'POST', path: '/api/auth/password', body: {} })).status).toBe(401);
  });

  it('one client exhausting the login limit does not lock out another address', async () => {
    const s = await serve();
    for (let i = 0; i < 5; i++) expect((await badLogin(s, '127.0.0.2')).status).toBe(401);
    const blocked = await goodLogin(s, '127.0.0.2');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
    // Another address logs in at once, and can keep using the API.
    const other = await goodLogin(s, '127.0.0.3');
    expect(other.status).toBe(200);
    const state = await send(s, {
      from: '127.0.0.3',
      path: '/api/generator/state',
      headers: { authorization: `Bearer ${other.body?.access_token}` },
    });
    expect(state.status).toBe(200);
    // The limited client is refused on /api/auth only; its token still works on the rest of /api.
    const sameClientApi = await send(s, {
      from: '127.0.0.2',
      path: '/api/generator/state',
      headers: { authorization: `Bearer ${other.body?.access_token}` },
    });
    expect(sameClientApi.status).toBe(200);
  });

  it('behind a trusted proxy the limit follows the forwarded client, not the proxy', async () => {
    const s = await serve({ trustedProxies: '127.0.0.1' });
    const as = (client: string) => ({ 'x-forwarded-for': client });
    for (let i = 0; i < 5; i++) expect((await badLogin(s, undefined, as('203.0.113.10'))).status).toBe(401);
    expect((await badLogin(s, undefined, as('203.0.113.10'))).status).toBe(429);
    // The proxy carries other users too: they are not locked out by the first one.
    expect((await goodLogin(s, undefined, as('203.0.113.11'))).status).toBe(200);
    // The locked-out client cannot free itself by prepending another address (the proxy appends the real one).
    expect((await goodLogin(s, undefined, as('203.0.113.99, 203.0.113.10'))).status).toBe(429);
  });

  it('the login limit counts an IPv6 /64 as one client, so rotating addresses inside it does not reset it', async () => {
    const s = await serve({ trustedProxies: '127.0.0.1' });
    const as = (client: string) => ({ 'x-forwarded-for': client });
    for (let i = 1; i <= 5; i++)
      expect((await badLogin(s, undefined, as(`2001:db8:5:6::${i}`))).status).toBe(401);
    expect((await badLogin(s, undefined, as('2001:db8:5:6:ffff:1:2:3'))).status).toBe(429);
    expect((await goodLogin(s, undefined, as('2001:db8:5:6::abcd'))).status).toBe(429);
    // The next /64 is another client.
    expect((await goodLogin(s, undefined, as('2001:db8:5:7::1'))).status).toBe(200);
  });

  it('a limited client is told when to retry, and the per-second limit lifts after a second', async () => {
    const s = await serve();
    const token = t!.token;
    const burst = await Promise.all(
      Array.from({ length: 100 }, () =>
        send(s, {
          from: '127.0.0.4',
          path: '/api/generator/state',
          headers: { authorization: `Bearer ${token}` },
        }),
      ),
    );
    const limited = burst.find((r) => r.status === 429);
    expect(limited?.retryAfter).toBe('1');
    // Another client is unaffected during the same second.
    expect(
      (
        await send(s, {
          from: '127.0.0.5',
          path: '/api/generator/state',
          headers: { authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expect(
      (
        await send(s, {
          from: '127.0.0.4',
          path: '/api/generator/state',
          headers: { authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(200);
  });
});
