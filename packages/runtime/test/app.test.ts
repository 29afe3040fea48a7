import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createRoute, z } from '@hono/zod-openapi';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp, HttpError } from '../src/app.js';

const require = createRequire(import.meta.url);

function makeApp(extra: Partial<Parameters<typeof createApp>[0]> = {}) {
  const app = createApp({
    service: 'demo',
    version: '1.2.3',
    logger: pino({ level: 'silent' }),
    bodyLimit: 1024,
    health: () => ({ broker: 'connected' }),
    healthDetail: (c) => c.req.header('x-api-key') === 'right-key',
    ...extra,
  });
  const Body = z
    .object({ minutes: z.number().int().min(1).max(1440), notes: z.string().max(5).optional() })
    .strict();
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/things',
      request: { body: { content: { 'application/json': { schema: Body } }, required: true } },
      responses: {
        200: {
          description: 'ok',
          content: { 'application/json': { schema: z.object({ ok: z.boolean() }) } },
        },
      },
    }),
    (c) => c.json({ ok: true }, 200),
  );
  app.get('/api/refuse', () => {
    throw new HttpError(409, 'Cannot start - automation is not armed');
  });
  app.get('/api/boom', () => {
    throw new Error('internal detail that must not leak');
  });
  return app;
}

const post = (app: ReturnType<typeof makeApp>, body: string) =>
  app.request('/api/things', { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('createApp', () => {
  it('answers /health with status and extras to a caller with the credential', async () => {
    const res = await makeApp().request('/health', { headers: { 'x-api-key': 'right-key' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'healthy',
      service: 'demo',
      version: '1.2.3',
      broker: 'connected',
    });
  });

  it('answers /health with {status} only without the credential, or with a wrong one', async () => {
    for (const headers of [{}, { 'x-api-key': 'wrong' }] as Record<string, string>[]) {
      const res = await makeApp().request('/health', { headers });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'healthy' });
    }
    // A service that names no credential never shows the detail.
    const bare = makeApp({ healthDetail: undefined });
    expect(await (await bare.request('/health', { headers: { 'x-api-key': 'right-key' } })).json()).toEqual({
      status: 'healthy',
    });
  });

  it('maps unparseable JSON to 400 {detail}', async () => {
    const res = await post(makeApp(), '{"minutes": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: expect.any(String) });
  });

  it('maps schema violations to 422 naming each field', async () => {
    const res = await post(makeApp(), JSON.stringify({ minutes: 0, notes: 'far too long' }));
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toMatch(/minutes: /);
    expect(detail).toMatch(/notes: /);
  });

  it('accepts a valid body', async () => {
    const res = await post(makeApp(), JSON.stringify({ minutes: 30 }));
    expect(res.status).toBe(200);
  });

  it('refuses oversized bodies with 413', async () => {
    const res = await post(makeApp(), JSON.stringify({ minutes: 1, pad: 'x'.repeat(4096) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toHaveProperty('detail');
  });

  it('a bodyLimit function gives one route a larger limit and keeps the others small', async () => {
    const app = makeApp({ bodyLimit: (c) => (c.req.path === '/api/upload' ? 8192 : 1024) });
    app.post('/api/upload', async (c) => c.json({ bytes: (await c.req.text()).length }, 200));
    const big = 'x'.repeat(4096);
    const up = await app.request('/api/upload', { method: 'POST', body: big });
    expect(await up.json()).toEqual({ bytes: 4096 });
    const things = await post(app, JSON.stringify({ minutes: 1, pad: big }));
    expect(things.status).toBe(413);
    const tooBig = await app.request('/api/upload', { method: 'POST', body: 'x'.repeat(9000) });
    expect(tooBig.status).toBe(413);
  });

  it('maps HttpError to its status and detail', async () => {
    const res = await makeApp().request('/api/refuse');
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ detail: 'Cannot start - automation is not armed' });
  });

  it('hides internal errors behind a generic 500 detail', async () => {
    const res = await makeApp().request('/api/boom');
    expect(res.status).toBe(500);
    expect(JSON.stringify(await res.json())).not.toContain('internal detail');
  });

  it('answers unknown paths with 404 {detail}', async () => {
    const res = await makeApp().request('/api/nothing');
    expect(res.status).toBe(404);
    expect(await res.json()).toHaveProperty('detail');
  });

  it('publishes an OpenAPI document with the documented routes', async () => {
    const doc = (await (await makeApp().request('/api/openapi.json')).json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('1.2.3');
    expect(doc.paths).toHaveProperty('/api/things');
  });

  it('serves the docs and their assets locally, with no CDN reference', async () => {
    const app = makeApp();
    for (const path of ['/api/docs', '/api/redoc']) {
      const html = await (await app.request(path)).text();
      expect(html).not.toMatch(/https?:\/\//);
    }
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'redoc.standalone.js', 'init.js']) {
      const res = await app.request(`/api/docs/assets/${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10);
    }
  });

  it('serves each docs asset as the installed file, byte for byte, on every request', async () => {
    const app = makeApp();
    const files = {
      'swagger-ui-bundle.js': 'swagger-ui-dist/swagger-ui-bundle.js',
      'swagger-ui.css': 'swagger-ui-dist/swagger-ui.css',
      'redoc.standalone.js': 'redoc/bundles/redoc.standalone.js',
    };
    for (const [asset, file] of Object.entries(files)) {
      let onDisk = readFileSync(require.resolve(file));
      // Redoc's one image from its CDN is blanked when the build copies it.
      if (asset === 'redoc.standalone.js') {
        const text = onDisk.toString('latin1');
        expect(text).toContain('"https://cdn.redoc.ly/');
        onDisk = Buffer.from(text.replace(/"https:\/\/cdn\.redoc\.ly\/[^"]*"/g, '""'), 'latin1');
      }
      // Twice: the files are read from disk at each request, not kept, so both answers must be whole.
      for (let i = 0; i < 2; i++) {
        const res = await app.request(`/api/docs/assets/${asset}`);
        expect(res.status, asset).toBe(200);
        expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
        expect(Buffer.from(await res.arrayBuffer()).equals(onDisk), asset).toBe(true);
      }
    }
    expect((await app.request('/api/docs/assets/nope.js')).status).toBe(404);
  });

  it('exposes Prometheus metrics including HTTP timings by route', async () => {
    const app = makeApp();
    await app.request('/health');
    const text = await (await app.request('/metrics')).text();
    expect(text).toMatch(/process_cpu_user_seconds_total/);
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/health"/);
  });

  it('sets security headers', async () => {
    const res = await makeApp().request('/health');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
