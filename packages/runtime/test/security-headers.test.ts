import { request } from 'node:http';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { SECURITY_HEADERS } from '../src/security-headers.js';
import { type RunningServer, serveApp } from '../src/serve.js';

/** Raw response head, to see each header line exactly as sent (duplicates included). */
function rawGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; lines: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => {
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          lines.push(`${res.rawHeaders[i]?.toLowerCase()}: ${res.rawHeaders[i + 1]}`);
        resolve({ status: res.statusCode ?? 0, lines, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

function demo() {
  const app = createApp({
    service: 'demo',
    version: '1',
    logger: pino({ level: 'silent' }),
    guard: (c) => (c.req.header('x-refuse') ? c.json({ detail: 'refused by the guard' }, 403) : undefined),
  });
  const body = { state: 'idle', armed: false };
  app.get('/api/state', (c) => c.body(JSON.stringify(body), 200, { 'content-type': 'application/json' }));
  app.get('/api/framed', (c) => c.json({ ok: true }, 200, { 'X-Frame-Options': 'DENY' }));
  return app;
}

let srv: RunningServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

describe('security headers over a real socket', () => {
  it('every answer carries each header exactly once, request after request', async () => {
    srv = await serveApp(demo(), { port: 0, host: '127.0.0.1' });
    for (let i = 0; i < 3; i++) {
      const res = await rawGet(`${srv.url}/api/state`);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ state: 'idle', armed: false });
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
        expect(res.lines.filter((l) => l.startsWith(`${name}:`))).toEqual([`${name}: ${value}`]);
      }
      expect(res.lines).toContain(`content-length: ${Buffer.byteLength(res.body)}`);
    }
  });

  it('a header the route sets wins over the default, in any letter case', async () => {
    srv = await serveApp(demo(), { port: 0, host: '127.0.0.1' });
    const res = await rawGet(`${srv.url}/api/framed`);
    expect(res.lines.filter((l) => l.startsWith('x-frame-options:'))).toEqual(['x-frame-options: DENY']);
    expect(res.lines).toContain('x-content-type-options: nosniff');
  });

  it('refusals of the guard, 404s and docs assets are hardened too', async () => {
    srv = await serveApp(demo(), { port: 0, host: '127.0.0.1' });
    const refused = await rawGet(`${srv.url}/api/state`, { 'x-refuse': '1' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({ detail: 'refused by the guard' });
    const missing = await rawGet(`${srv.url}/nope`);
    expect(missing.status).toBe(404);
    const init = await rawGet(`${srv.url}/api/docs/assets/init.js`);
    expect(init.status).toBe(200);
    expect(init.body).toContain('SwaggerUIBundle');
    for (const res of [refused, missing, init]) expect(res.lines).toContain('x-frame-options: SAMEORIGIN');
  });

  it('app.request (no Node response) gets the same headers on the Response', async () => {
    const res = await demo().request('/api/state');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name)).toBe(value);
  });
});
