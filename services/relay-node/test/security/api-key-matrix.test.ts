import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET, startTestNode } from '../service-helpers.js';

/**
 * X-API-Key on every relay node route (spec: "every endpoint needs header X-API-Key"), the routes read
 * from the node's own OpenAPI document so a route added later is covered too. README: missing 401,
 * wrong 403, both with {detail}; the documentation and GET /health stay open.
 */

type Node = Awaited<ReturnType<typeof startTestNode>>;

interface Route {
  method: string;
  path: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Open by design (README "HTTP"): the API's own documentation. */
const OPEN_API = new Set(['/api/openapi.json', '/api/docs', '/api/redoc']);

/** Under /api but not documented: must not answer differently from a real route without a key. */
const UNDOCUMENTED: Route[] = [
  { method: 'GET', path: '/api/does-not-exist' },
  { method: 'DELETE', path: '/api/relay/state' },
  { method: 'GET', path: '/api/' },
];

interface Variant {
  name: string;
  headers: Record<string, string>;
  status: 401 | 403;
  detail: string;
}

const MISSING = 'Missing X-API-Key header';
const WRONG = 'Invalid API key';

const INVALID: Variant[] = [
  { name: 'no X-API-Key', headers: {}, status: 401, detail: MISSING },
  { name: 'empty X-API-Key', headers: { 'x-api-key': '' }, status: 401, detail: MISSING },
  {
    name: 'key as a bearer token',
    headers: { authorization: `Bearer ${SECRET}` },
    status: 401,
    detail: MISSING,
  },
  { name: 'key under another header', headers: { 'x-api-token': SECRET }, status: 401, detail: MISSING },
  { name: 'wrong key', headers: { 'x-api-key': 'wrong' }, status: 403, detail: WRONG },
  { name: 'right key plus a suffix', headers: { 'x-api-key': `${SECRET}x` }, status: 403, detail: WRONG },
  {
    name: 'right key minus its last character',
    headers: { 'x-api-key': SECRET.slice(0, -1) },
    status: 403,
    detail: WRONG,
  },
  {
    name: 'right key in upper case',
    headers: { 'x-api-key': SECRET.toUpperCase() },
    status: 403,
    detail: WRONG,
  },
  { name: 'very long key', headers: { 'x-api-key': 'k'.repeat(8000) }, status: 403, detail: WRONG },
];

let n: Node;
let routes: Route[] = [];

async function call(route: Route, headers: Record<string, string>) {
  const init: RequestInit = { method: route.method, headers: { ...headers } };
  if (route.method !== 'GET') {
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
    init.body = '{}';
  }
  const res = await fetch(`${n.url}${route.path}`, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // docs pages
  }
  return { status: res.status, body };
}

beforeAll(async () => {
  n = await startTestNode();
  const doc = (await (await fetch(`${n.url}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    METHODS.filter((m) => m in ops).map((m) => ({ method: m.toUpperCase(), path })),
  );
});

afterAll(async () => {
  await n?.stop();
});

describe('relay node X-API-Key matrix (routes from the OpenAPI document)', () => {
  it('the document lists every spec route and the mock-mode dev routes', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    for (const k of [
      'GET /api/health',
      'GET /api/failsafe',
      'GET /api/relay/state',
      'POST /api/relay/on',
      'POST /api/relay/off',
      'POST /api/relay/arm',
      'POST /api/relay/disarm',
      'POST /api/heartbeat',
      'GET /api/system',
      'POST /api/system/reboot',
      'POST /api/system/shutdown',
      'POST /api/system/wifi/add',
      'POST /api/system/wifi/connect',
      'POST /api/relaynode/reboot-schedule',
      'POST /api/relaynode/notifications',
      'POST /api/relaynode/notifications/settings',
      'POST /api/relaynode/notifications/test',
      'POST /api/dev/epo',
      'GET /api/dev/status',
    ]) {
      expect(keys).toContain(k);
    }
  });

  it('every route refuses a missing key with 401 and a wrong one with 403, each with {detail}', async () => {
    const failures: string[] = [];
    const targets = [...routes.filter((r) => !OPEN_API.has(r.path)), ...UNDOCUMENTED];
    for (const route of targets) {
      for (const v of INVALID) {
        const res = await call(route, v.headers);
        if (res.status !== v.status || (res.body as { detail?: string })?.detail !== v.detail) {
          failures.push(
            `${route.method} ${route.path} [${v.name}] → ${res.status} ${JSON.stringify(res.body)}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
    expect(targets.length).toBeGreaterThanOrEqual(22);
  });

  it('nothing a refused request asked for happened: the relay stays off and disarmed, no reboot', async () => {
    for (const path of ['/api/relay/arm', '/api/relay/on', '/api/system/reboot', '/api/system/shutdown']) {
      for (const v of INVALID) await call({ method: 'POST', path }, v.headers);
    }
    await call({ method: 'POST', path: '/api/heartbeat' }, { 'x-api-key': 'wrong' });
    const status = await call({ method: 'GET', path: '/api/dev/status' }, { 'x-api-key': SECRET });
    expect(status.body).toMatchObject({ relay_on: false, armed: false, power_calls: [] });
    expect(n.io.level('GPIO16')).toBe(0);
  });

  it('the right key is never refused with 401 or 403 on any route', { timeout: 30_000 }, async () => {
    const failures: string[] = [];
    for (const route of [...routes, ...UNDOCUMENTED]) {
      const res = await call(route, { 'x-api-key': SECRET });
      if (res.status === 401 || res.status === 403) {
        failures.push(`${route.method} ${route.path} → ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('the documentation and GET /health answer without a key, whatever key is sent', async () => {
    for (const path of ['/health', ...OPEN_API]) {
      for (const v of INVALID) {
        expect((await call({ method: 'GET', path }, v.headers)).status, `${path} [${v.name}]`).toBe(200);
      }
    }
  });

  it('GET /health without the right key says only that the node is up: no relay, failsafe or version', async () => {
    for (const v of INVALID) {
      expect((await call({ method: 'GET', path: '/health' }, v.headers)).body, v.name).toEqual({
        status: 'healthy',
      });
    }
    const full = (await call({ method: 'GET', path: '/health' }, { 'x-api-key': SECRET })).body;
    expect(full).toMatchObject({
      status: 'healthy',
      service: 'relaynode',
      relay_on: false,
      failsafe_triggered: expect.any(Boolean),
    });
  });
});
