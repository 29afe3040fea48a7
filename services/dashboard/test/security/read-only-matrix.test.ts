import { type RunningBroker, startBroker } from '@outpost/broker';
import { ManualClock } from '@outpost/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Dashboard, startDashboard } from '../../src/app.js';
import { silentLogger, testConfig, waitFor } from '../helpers.js';

/**
 * The dashboard is read-only (spec: "It has no endpoint that changes its state"; README: every method
 * but GET and HEAD gets 405). Every path it serves — from its OpenAPI document, the docs, the console
 * and its assets — is tried with every writing method, with and without the optional DASHBOARD_AUTH,
 * and every credential variant of that basic auth is tried on every path and on /ws.
 */

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
const CREDS = { username: 'ops', password: 'fleet:pass word' };
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

const BAD_CREDENTIALS: { name: string; headers: Record<string, string> }[] = [
  { name: 'no credentials', headers: {} },
  { name: 'wrong password', headers: { authorization: basic(CREDS.username, 'wrong') } },
  { name: 'wrong user', headers: { authorization: basic('admin', CREDS.password) } },
  { name: 'password only', headers: { authorization: basic('', CREDS.password) } },
  { name: 'password prefix', headers: { authorization: basic(CREDS.username, 'fleet') } },
  { name: 'no colon', headers: { authorization: `Basic ${Buffer.from('opsfleet').toString('base64')}` } },
  { name: 'not base64', headers: { authorization: 'Basic !!!' } },
  { name: 'bare scheme', headers: { authorization: 'Basic' } },
  { name: 'bearer scheme', headers: { authorization: `Bearer ${CREDS.password}` } },
  {
    name: 'credentials in plain text',
    headers: { authorization: `Basic ${CREDS.username}:${CREDS.password}` },
  },
];
const GOOD = { authorization: basic(CREDS.username, CREDS.password) };

let broker: RunningBroker;
let open: Dashboard;
let locked: Dashboard;
/** Every path the dashboard serves over plain HTTP. */
let paths: string[] = [];
const clock = new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));

beforeAll(async () => {
  broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
  open = await startDashboard(testConfig({ mqttUrl: broker.url, serviceId: 'open-matrix' }), {
    logger: silentLogger,
    clock,
  });
  locked = await startDashboard(
    testConfig({ mqttUrl: broker.url, serviceId: 'locked-matrix', auth: CREDS, publish: false }),
    { logger: silentLogger, clock },
  );
  await waitFor(() => open.bus.connected && locked.bus.connected, 5000, 'dashboards connected');
  const doc = (await (await fetch(`${open.url}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const index = await (await fetch(`${open.url}/`)).text();
  const assets = [...index.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1] as string);
  paths = [
    ...new Set([
      ...Object.keys(doc.paths).filter((p) => p !== '/ws'),
      '/',
      ...assets,
      '/health',
      '/metrics',
      '/api/openapi.json',
      '/api/docs',
      '/api/redoc',
      '/api/docs/assets/init.js',
    ]),
  ];
});

afterAll(async () => {
  await open?.close();
  await locked?.close();
  await broker?.close();
});

async function send(d: Dashboard, method: string, path: string, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (method !== 'GET' && method !== 'HEAD') {
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
    init.body = JSON.stringify({ simulators: [], online: true });
  }
  const res = await fetch(`${d.url}${path}`, init);
  const text = await res.text();
  return {
    status: res.status,
    text,
    allow: res.headers.get('allow'),
    challenge: res.headers.get('www-authenticate'),
  };
}

function upgrade(d: Dashboard, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${d.url.replace(/^http/, 'ws')}/ws`, { headers });
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

describe('dashboard: every path × every writing method', () => {
  it('the generated path list covers the document, the console and its assets', () => {
    expect(paths).toEqual(expect.arrayContaining(['/api/status', '/', '/health', '/api/docs']));
    expect(paths.some((p) => p.startsWith('/assets/'))).toBe(true);
  });

  it('without DASHBOARD_AUTH: POST, PUT, PATCH, DELETE → 405 {detail} with Allow: GET, HEAD; GET and HEAD work', async () => {
    const failures: string[] = [];
    const before = await send(open, 'GET', '/api/status');
    for (const path of paths) {
      for (const method of WRITE_METHODS) {
        const res = await send(open, method, path);
        const detail = `Method ${method} not allowed: the dashboard is read-only`;
        if (res.status !== 405 || res.allow !== 'GET, HEAD' || JSON.parse(res.text).detail !== detail) {
          failures.push(`${method} ${path} → ${res.status} allow=${res.allow} ${res.text.slice(0, 80)}`);
        }
      }
      for (const method of ['GET', 'HEAD']) {
        const res = await send(open, method, path);
        if (res.status !== 200) failures.push(`${method} ${path} → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
    // The snapshot did not change through any of it (the clock did not move, so it is byte-identical).
    expect((await send(open, 'GET', '/api/status')).text).toBe(before.text);
  });

  it('with DASHBOARD_AUTH: writing is refused with 405 whatever the credentials', async () => {
    const failures: string[] = [];
    for (const path of paths) {
      for (const method of WRITE_METHODS) {
        for (const creds of [...BAD_CREDENTIALS, { name: 'right credentials', headers: GOOD }]) {
          const res = await send(locked, method, path, creds.headers);
          if (res.status !== 405) failures.push(`${method} ${path} [${creds.name}] → ${res.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

/** Served by the shared runtime (createApp) rather than by the dashboard's own routes. */
const RUNTIME_PATHS = [
  '/metrics',
  '/api/openapi.json',
  '/api/docs',
  '/api/redoc',
  '/api/docs/assets/init.js',
];

/** Every bad credential on the given paths: the cells that did not answer 401 with a Basic challenge. */
async function unchallenged(targets: string[]): Promise<string[]> {
  const failures: string[] = [];
  for (const path of targets) {
    for (const creds of BAD_CREDENTIALS) {
      for (const method of ['GET', 'HEAD']) {
        const res = await send(locked, method, path, creds.headers);
        const ok =
          res.status === 401 &&
          /^Basic realm="/.test(res.challenge ?? '') &&
          (method === 'HEAD' || JSON.parse(res.text).detail === 'Authentication required');
        if (!ok) failures.push(`${method} ${path} [${creds.name}] → ${res.status} ${res.challenge}`);
      }
    }
  }
  return failures;
}

describe('dashboard: DASHBOARD_AUTH on every path', () => {
  it('the fleet API, the console and its assets refuse every bad credential with 401, a Basic challenge and {detail}', async () => {
    const targets = paths.filter((p) => p !== '/health' && !RUNTIME_PATHS.includes(p));
    expect(targets.length).toBeGreaterThanOrEqual(3);
    expect(await unchallenged(targets)).toEqual([]);
  });

  // README: with DASHBOARD_AUTH "/health stays open" — and only /health (OPEN_PATHS in the gateway).
  it('metrics and the API documentation are behind DASHBOARD_AUTH too; only /health stays open', async () => {
    expect(await unchallenged(RUNTIME_PATHS)).toEqual([]);
  });

  it('the right credentials open every path; /health needs none', async () => {
    for (const path of paths) {
      expect((await send(locked, 'GET', path, GOOD)).status, path).toBe(200);
    }
    for (const creds of BAD_CREDENTIALS) {
      expect((await send(locked, 'GET', '/health', creds.headers)).status, creds.name).toBe(200);
    }
  });

  it('/ws: 401 for every bad credential, open with the right ones; without DASHBOARD_AUTH open to all', async () => {
    for (const creds of BAD_CREDENTIALS) expect(await upgrade(locked, creds.headers), creds.name).toBe(401);
    expect(await upgrade(locked, GOOD)).toBe(101);
    expect(await upgrade(open, {})).toBe(101);
  });
});
