import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningServer, serveApp } from '@outpost/runtime';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelaynodeAdmin } from '../../src/bus/relaynode-admin.js';
import type { Database } from '../../src/db/connection.js';
import { notifierProxy } from '../../src/gateway/notifier-proxy.js';
import { ADMIN, type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { type CredentialVariant, invalidCredentials } from './tokens.js';

/**
 * The controller's bearer-token gate, checked on every route the gateway serves: the routes are read
 * from the app's own OpenAPI document (so a route added later is covered without editing this file),
 * plus the paths it serves without documenting them (the notifier's API it forwards, the docs assets).
 */

interface Route {
  method: string;
  path: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Paths under /api that need no token, as the gateway defines them. */
const PUBLIC_DOCUMENTED = new Set(['POST /api/auth/login', 'GET /api/openapi.json']);

/** Served but not in the OpenAPI document: forwarded to the notifier after the controller's own auth. */
const NOTIFIER_ROUTES: Route[] = [
  { method: 'GET', path: '/api/notifications/channels' },
  { method: 'POST', path: '/api/notifications/channels' },
  { method: 'GET', path: '/api/notifications/channels/1' },
  { method: 'PUT', path: '/api/notifications/channels/1' },
  { method: 'DELETE', path: '/api/notifications/channels/1' },
  { method: 'POST', path: '/api/notifications/channels/1/test' },
  { method: 'GET', path: '/api/notifications/groups' },
  { method: 'POST', path: '/api/notifications/groups' },
  { method: 'PUT', path: '/api/notifications/groups/1' },
  { method: 'DELETE', path: '/api/notifications/groups/1' },
  { method: 'POST', path: '/api/notifications/send' },
  { method: 'GET', path: '/api/notifications/history?limit=5' },
  { method: 'GET', path: '/api/notifications' },
  { method: 'GET', path: '/api/system-notifications' },
  { method: 'GET', path: '/api/system-notifications/generator_started' },
  { method: 'PUT', path: '/api/system-notifications/generator_started' },
];

/** Paths that do not exist still need a token under /api: an unknown path must not reveal itself. */
const UNKNOWN_API_ROUTES: Route[] = [
  { method: 'GET', path: '/api/does-not-exist' },
  { method: 'POST', path: '/api/generator/does-not-exist' },
  { method: 'GET', path: '/api/' },
  // Case and encoding variations of protected paths must not slip past the public-path check.
  { method: 'GET', path: '/api/AUTH/LOGIN' },
  { method: 'GET', path: '/api/auth/login/../../generator/state' },
  { method: 'GET', path: '/api/generator/state/' },
  { method: 'GET', path: '/api/%67enerator/state' },
];

/** Public: no token needed, and a bad token must not break them either. */
const PUBLIC_ROUTES: Route[] = [
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/api/openapi.json' },
  { method: 'GET', path: '/api/docs' },
  { method: 'GET', path: '/api/redoc' },
  { method: 'GET', path: '/api/docs/assets/init.js' },
  { method: 'GET', path: '/api/docs/assets/swagger-ui.css' },
];

const sample = (path: string) => path.replace(/\{[^}]+\}/g, '1');

let tdb: TestDatabase;
let database: Database;
let t: TestApp;
let srv: RunningServer;
let notifier: Server;
const forwarded: string[] = [];
let documented: Route[] = [];
let protectedRoutes: Route[] = [];
let variants: CredentialVariant[] = [];
let operations: { key: string; security: unknown }[] = [];

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
  // A notifier that records what reaches it: a request the gate refuses must never be forwarded.
  notifier = createServer((req, res) => {
    forwarded.push(`${req.method} ${req.url} ${req.headers.authorization ? 'with-token' : 'no-token'}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => notifier.listen(0, '127.0.0.1', r));
  const logger = pino({ level: 'silent' });
  t = await testApp(database, {
    gateway: {
      // Broker absent: the relay node routes answer 503, but they exist and sit behind the gate.
      relaynode: new RelaynodeAdmin(null, 'main', 1000),
      notifier: notifierProxy({
        url: `http://127.0.0.1:${(notifier.address() as AddressInfo).port}`,
        apiSecret: 'auth-matrix-notifier-key-0123456789abcdef',
        logger,
      }),
    },
  });
  await t.login();
  // The gate reads Node's own header object on a real socket and web Headers in process: both are tried.
  srv = await serveApp(t.app, { port: 0, host: '127.0.0.1' });
  const doc = (await (await t.app.request('/api/openapi.json')).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    METHODS.filter((m) => m in ops).map((m) => ({
      key: `${m.toUpperCase()} ${path}`,
      security: (ops[m] as { security?: unknown }).security,
    })),
  );
  documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
    METHODS.filter((m) => m in ops).map((m) => ({ method: m.toUpperCase(), path: sample(path) })),
  );
  protectedRoutes = [
    ...documented.filter((r) => !PUBLIC_DOCUMENTED.has(`${r.method} ${r.path}`)),
    ...NOTIFIER_ROUTES,
    ...UNKNOWN_API_ROUTES,
  ];
  variants = await invalidCredentials(t.token, t.clock.now());
}, 90_000);

afterAll(async () => {
  await srv?.close();
  await t?.close();
  await new Promise((r) => notifier?.close(r));
  await database?.close();
  await tdb?.cleanup();
});

type Via = 'in-process' | 'socket';
const VIAS: Via[] = ['in-process', 'socket'];

async function call(route: Route, authorization: string | null, via: Via = 'in-process') {
  const headers: Record<string, string> = {};
  if (authorization !== null) headers.authorization = authorization;
  const init: RequestInit = { method: route.method, headers };
  if (!['GET', 'HEAD'].includes(route.method)) {
    headers['content-type'] = 'application/json';
    init.body = '{}';
  }
  const res =
    via === 'socket' ? await fetch(`${srv.url}${route.path}`, init) : await t.app.request(route.path, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (docs pages, assets)
  }
  return { status: res.status, body, wwwAuthenticate: res.headers.get('www-authenticate') };
}

describe('controller auth matrix (routes from the OpenAPI document)', () => {
  it('the document lists the whole documented API, relay node and dev routes included', () => {
    const keys = documented.map((r) => `${r.method} ${r.path}`);
    // Spot checks that the generation found the groups the spec lists; the matrix below uses them all.
    for (const k of [
      'GET /api/generator/state',
      'POST /api/generator/start',
      'POST /api/override/enable',
      'POST /api/relaynode/reboot-schedule',
      'POST /api/dev/gpio/bms-signal',
      'GET /api/auth/me',
      'POST /api/auth/login',
    ]) {
      expect(keys).toContain(k);
    }
    expect(documented.length).toBeGreaterThan(30);
  });

  it('every protected operation declares the bearer scheme, so the docs send the token; public ones do not', () => {
    const unmarked = operations.filter(
      (o) => !PUBLIC_DOCUMENTED.has(o.key) && JSON.stringify(o.security) !== '[{"bearer":[]}]',
    );
    expect(unmarked.map((o) => o.key)).toEqual([]);
    // Public: no requirement of their own, or the explicit empty one (`security: []`) over a default.
    for (const key of PUBLIC_DOCUMENTED)
      expect(operations.find((o) => o.key === key)?.security ?? [], key).toEqual([]);
  });

  it('every protected route refuses every bad credential with 401, {detail} and WWW-Authenticate: Bearer', async () => {
    const failures: string[] = [];
    let cells = 0;
    for (const via of VIAS) {
      for (const route of protectedRoutes) {
        for (const v of variants) {
          cells++;
          const res = await call(route, v.authorization, via);
          const detail = (res.body as { detail?: unknown } | null)?.detail;
          if (res.status !== 401 || typeof detail !== 'string' || res.wwwAuthenticate !== 'Bearer') {
            failures.push(
              `${via} ${route.method} ${route.path} [${v.name}] → ${res.status} ${JSON.stringify(res.body).slice(0, 120)} www-authenticate=${res.wwwAuthenticate}`,
            );
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(cells).toBe(VIAS.length * protectedRoutes.length * variants.length);
    // Nothing the gate refused reached the notifier.
    expect(forwarded).toEqual([]);
  });

  it('a valid token is never refused with 401 on any route', async () => {
    const failures: string[] = [];
    for (const via of VIAS) {
      for (const route of [...protectedRoutes, ...PUBLIC_ROUTES]) {
        // Logout revokes the token it is called with; a fresh one keeps the rest of the matrix honest.
        if (!(await t.svc.auth.verify(t.token))) await t.login();
        const res = await call(route, `Bearer ${t.token}`, via);
        if (res.status === 401 || res.status === 403 || res.status === 429) {
          failures.push(
            `${via} ${route.method} ${route.path} → ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
    // Every notifier route was forwarded, with the controller's own short-lived token.
    expect(forwarded).toHaveLength(VIAS.length * NOTIFIER_ROUTES.length);
    expect(forwarded.every((f) => f.endsWith('with-token'))).toBe(true);
  });

  it('public routes answer without credentials and whatever Authorization header is sent', async () => {
    const failures: string[] = [];
    for (const via of VIAS) {
      for (const route of PUBLIC_ROUTES) {
        for (const v of variants) {
          const res = await call(route, v.authorization, via);
          if (res.status !== 200)
            failures.push(`${via} ${route.method} ${route.path} [${v.name}] → ${res.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('login needs no token: the right password logs in under every bad Authorization header', async () => {
    for (const v of variants) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (v.authorization !== null) headers.authorization = v.authorization;
      const res = await t.app.request('/api/auth/login', {
        method: 'POST',
        headers,
        body: JSON.stringify(ADMIN),
      });
      expect(res.status, v.name).toBe(200);
      expect(((await res.json()) as { token_type: string }).token_type).toBe('bearer');
    }
  });

  it('a token expires by the clock: valid just before exp, 401 from exp on', async () => {
    const token = await t.login();
    const exp = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number })
      .exp;
    const route = { method: 'GET', path: '/api/generator/state' };
    t.clock.advance(exp * 1000 - 1000 - t.clock.now());
    expect((await call(route, `Bearer ${token}`)).status).toBe(200);
    t.clock.advance(1000);
    const expired = await call(route, `Bearer ${token}`);
    expect(expired).toMatchObject({
      status: 401,
      body: { detail: 'Invalid or expired token' },
      wwwAuthenticate: 'Bearer',
    });
  });
});
