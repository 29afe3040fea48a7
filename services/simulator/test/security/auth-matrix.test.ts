import { request as httpRequest } from 'node:http';
import { ManualClock } from '@outpost/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SESSION_IDLE_MS } from '../../src/gateway/auth.js';
import { Api, startTestSim, TEST_PASSWORD, TEST_USER, type TestSim } from '../helpers/sim.js';

/**
 * The simulator's session gate on every route it serves: the routes come from its own OpenAPI
 * document (fetched with a valid session), plus the documentation pages, unknown /api paths and the
 * /ws live stream. Each route is tried with no cookie, forged and malformed cookies, an expired and a
 * logged-out session, and a valid one. Last, the login limit is kept per client address.
 */

interface Route {
  method: string;
  path: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const LOGIN = 'POST /api/auth/login';
/** Answers every caller: whether the cookie it came with is a session. */
const CHECK = 'GET /api/auth/check';

/** Under /api but not listed in the document: an unknown path and a method the route lacks. */
const UNDOCUMENTED: Route[] = [
  { method: 'GET', path: '/api/does-not-exist' },
  { method: 'DELETE', path: '/api/status' },
];

/**
 * The API documentation, also under /api. The spec names GET /health as the one unauthenticated
 * endpoint and ARCHITECTURE.md says every /api/* but login answers 401 without a session.
 */
const DOCS: Route[] = [
  { method: 'GET', path: '/api/openapi.json' },
  { method: 'GET', path: '/api/docs' },
  { method: 'GET', path: '/api/redoc' },
  { method: 'GET', path: '/api/docs/assets/init.js' },
];

/** What a sample request to a templated path looks like. */
const sample = (path: string) =>
  path.replace('{icao}', 'KSFO').replace(/\{[^}]+\}/g, '1') +
  (path === '/api/airports/search' ? '?q=KS' : '');

let sim: TestSim;
let clock: ManualClock;
let routes: Route[] = [];

/** A fresh session token from a real login. */
async function session(): Promise<string> {
  const api = new Api(sim.url);
  const res = await api.login();
  if (res.status !== 200 || !api.cookie) throw new Error(`login failed: ${res.status}`);
  return api.cookie;
}

/** A session that was valid and has been idle past the server's limit. */
async function expiredSession(): Promise<string> {
  const cookie = await session();
  clock.advance(SESSION_IDLE_MS + 1);
  return cookie;
}

async function loggedOutSession(): Promise<string> {
  const cookie = await session();
  const res = await fetch(`${sim.url}/api/auth/logout`, { method: 'POST', headers: { cookie } });
  if (res.status !== 200) throw new Error(`logout failed: ${res.status}`);
  return cookie;
}

interface Variant {
  name: string;
  headers: () => Promise<Record<string, string>>;
}

const cookie = (value: string) => async () => ({ cookie: value });

function invalidVariants(): Variant[] {
  return [
    { name: 'no cookie', headers: async () => ({}) },
    // Same shape as a real token (32 random bytes, base64url), never issued.
    { name: 'forged token', headers: cookie(`gps_session=${Buffer.alloc(32, 7).toString('base64url')}`) },
    { name: 'empty cookie', headers: cookie('gps_session=') },
    { name: 'garbage cookie', headers: cookie('gps_session=%00%ff;;=;') },
    { name: 'oversized cookie', headers: cookie(`gps_session=${'A'.repeat(4000)}`) },
    {
      name: 'valid token under another cookie name',
      headers: async () => ({ cookie: (await session()).replace('gps_session=', 'gps_sessionx=') }),
    },
    { name: 'valid token with a suffix', headers: async () => ({ cookie: `${await session()}x` }) },
    {
      name: 'valid token as a bearer header',
      headers: async () => ({ authorization: `Bearer ${(await session()).split('=')[1]}` }),
    },
    { name: 'expired session', headers: async () => ({ cookie: await expiredSession() }) },
    { name: 'logged-out session', headers: async () => ({ cookie: await loggedOutSession() }) },
  ];
}

async function call(route: Route, headers: Record<string, string>) {
  const init: RequestInit = { method: route.method, headers: { ...headers } };
  if (route.method !== 'GET') {
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
    init.body = '{}';
  }
  const res = await fetch(`${sim.url}${route.path}`, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // HTML or script
  }
  return { status: res.status, body };
}

/** The HTTP status a WebSocket upgrade to /ws gets (101 when it opens). */
function upgradeStatus(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${sim.url.replace(/^http/, 'ws')}/ws`, { headers });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', () => {});
  });
}

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  sim = await startTestSim({}, { login: false, clock });
  const res = await fetch(`${sim.url}/api/openapi.json`, { headers: { cookie: await session() } });
  const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    METHODS.filter((m) => m in ops).map((m) => ({ method: m.toUpperCase(), path: sample(path) })),
  );
});

afterAll(async () => {
  await sim?.close();
});

describe('simulator auth matrix (routes from the OpenAPI document)', () => {
  it('the document lists the spec routes', () => {
    const keys = routes.map((r) => `${r.method} ${r.path.split('?')[0]}`);
    for (const k of [
      LOGIN,
      'POST /api/auth/logout',
      'GET /api/auth/check',
      'GET /api/status',
      'POST /api/control',
      'POST /api/position',
      'POST /api/config/modes',
      'POST /api/config/network',
      'POST /api/config/nmea',
      'POST /api/config/serial',
      'GET /api/serial/devices',
      'POST /api/serial/select',
      'GET /api/airports/lookup/KSFO',
      'GET /api/airports/search',
      'GET /api/airports/list',
    ]) {
      expect(keys).toContain(k);
    }
  });

  it('every route but login and the session status refuses every invalid session with 401 {detail}', async () => {
    const failures: string[] = [];
    const targets = [
      ...routes.filter((r) => ![LOGIN, CHECK].includes(`${r.method} ${r.path}`)),
      ...UNDOCUMENTED,
    ];
    const variants = invalidVariants();
    for (const route of targets) {
      for (const v of variants) {
        const res = await call(route, await v.headers());
        const detail = (res.body as { detail?: unknown } | null)?.detail;
        if (res.status !== 401 || typeof detail !== 'string') {
          failures.push(
            `${route.method} ${route.path} [${v.name}] → ${res.status} ${JSON.stringify(res.body).slice(0, 100)}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
    // The 13 spec routes besides login and the session status, plus the two undocumented ones.
    expect(targets.length).toBeGreaterThanOrEqual(15);
  });

  it('the session status answers 200 {authenticated: false} for every invalid session, true for a valid one', async () => {
    const failures: string[] = [];
    for (const v of invalidVariants()) {
      const res = await call({ method: 'GET', path: '/api/auth/check' }, await v.headers());
      const expected = { authenticated: false, username: null, bypass_auth: false };
      if (res.status !== 200 || JSON.stringify(res.body) !== JSON.stringify(expected)) {
        failures.push(`[${v.name}] → ${res.status} ${JSON.stringify(res.body).slice(0, 100)}`);
      }
    }
    expect(failures).toEqual([]);
    const valid = await call({ method: 'GET', path: '/api/auth/check' }, { cookie: await session() });
    expect(valid).toEqual({
      status: 200,
      body: { authenticated: true, username: 'pilot', bypass_auth: false },
    });
  });

  it('the API documentation under /api needs a session like every other /api path', async () => {
    const failures: string[] = [];
    for (const route of DOCS) {
      for (const v of invalidVariants()) {
        const res = await call(route, await v.headers());
        if (res.status !== 401) failures.push(`${route.method} ${route.path} [${v.name}] → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a valid session is never refused with 401 on any route', async () => {
    const failures: string[] = [];
    let current = await session();
    for (const route of [...routes, ...UNDOCUMENTED, ...DOCS]) {
      const res = await call(route, { cookie: current });
      if (res.status === 401 || res.status === 403) {
        failures.push(
          `${route.method} ${route.path} → ${res.status} ${JSON.stringify(res.body).slice(0, 100)}`,
        );
      }
      // Logout ends the session it is called with; the next route gets a fresh one.
      if (route.path === '/api/auth/logout') current = await session();
    }
    expect(failures).toEqual([]);
  });

  it('login itself needs no session, whatever cookie comes with it', async () => {
    for (const v of invalidVariants()) {
      const res = await fetch(`${sim.url}/api/auth/login`, {
        method: 'POST',
        headers: { ...(await v.headers()), 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'pilot', password: 'correct horse battery' }),
      });
      expect(res.status, v.name).toBe(200);
    }
  });

  it('/health and the console stay open with or without a session', async () => {
    for (const v of invalidVariants()) {
      const headers = await v.headers();
      for (const path of ['/health', '/']) {
        expect((await call({ method: 'GET', path }, headers)).status, `${path} [${v.name}]`).toBe(200);
      }
    }
  });

  it('/health: {status} only for every invalid session (the spec promises that field), the detail with a valid one', async () => {
    for (const v of invalidVariants()) {
      expect((await call({ method: 'GET', path: '/health' }, await v.headers())).body, v.name).toEqual({
        status: 'healthy',
      });
    }
    const full = (await call({ method: 'GET', path: '/health' }, { cookie: await session() })).body;
    expect(full).toMatchObject({ status: 'healthy', service: 'simulator', running: false });
  });

  it('the /ws upgrade: 401 for every invalid session, open for a valid one', async () => {
    for (const v of invalidVariants()) {
      expect(await upgradeStatus(await v.headers()), v.name).toBe(401);
    }
    expect(await upgradeStatus({ cookie: await session() })).toBe(101);
  });

  it('a session stays valid while used and is forgotten after the idle limit', async () => {
    const c = await session();
    const status = { method: 'GET', path: '/api/status' };
    clock.advance(SESSION_IDLE_MS - 1000);
    expect((await call(status, { cookie: c })).status).toBe(200);
    // Use refreshed the idle timer: the same span again is still within the limit.
    clock.advance(SESSION_IDLE_MS - 1000);
    expect((await call(status, { cookie: c })).status).toBe(200);
    clock.advance(SESSION_IDLE_MS + 1);
    expect(await call(status, { cookie: c })).toEqual({ status: 401, body: { detail: 'Not authenticated' } });
  });
});

/** A login from a chosen loopback source address, so the server sees a distinct client. */
function loginFrom(from: string, password: string, headers: Record<string, string> = {}): Promise<number> {
  const url = new URL(sim.url);
  const body = JSON.stringify({ username: 'pilot', password });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/auth/login',
        localAddress: from,
        agent: false,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('simulator login limit per client address', () => {
  it('a forged X-Forwarded-For does not reset it, and another address is not locked out', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(await loginFrom('127.0.0.2', 'wrong', { 'x-forwarded-for': `198.51.100.${i + 1}` }));
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(await loginFrom('127.0.0.2', 'correct horse battery')).toBe(429);
    expect(await loginFrom('127.0.0.3', 'correct horse battery')).toBe(200);
  });
});

describe('the session cookie', () => {
  const login = (url: string) =>
    sim.gateway.app.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: TEST_USER, password: TEST_PASSWORD }),
    });

  it('is Secure over HTTPS, so a browser never sends it over plain HTTP', async () => {
    const res = await login('https://sim.example/api/auth/login');
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^gps_session=/);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
  });

  it('is not Secure on a plain-HTTP listener (loopback development), where a browser would drop it', async () => {
    const res = await login('http://127.0.0.1/api/auth/login');
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie') ?? '').not.toMatch(/;\s*Secure/i);
  });
});
