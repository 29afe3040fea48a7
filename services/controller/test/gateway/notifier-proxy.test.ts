import { createServer, type Server } from 'node:http';
import { httpTarget, unknownRoutes } from '@outpost/contracts/testing/openapi';
import { createApp, serveApp } from '@outpost/runtime';
import { jwtVerify } from 'jose';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { notifierProxy } from '../../src/gateway/notifier-proxy.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';

const NOTIFIER_KEY = 'notifier-proxy-test-service-key-0123456789';

/** A stand-in notifier on 127.0.0.1 that checks the service token the way the notifier does. */
async function fakeNotifier() {
  const seen: { method: string; url: string; body: string; sub: string | null; auth: string }[] = [];
  const state = { hang: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (state.hang) return;
      const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
      let sub: string | null = null;
      try {
        const { payload } = await jwtVerify(m?.[1] ?? '', new TextEncoder().encode(NOTIFIER_KEY), {
          algorithms: ['HS256'],
          issuer: 'outpost-controller',
          audience: 'outpost-notifier',
        });
        sub = payload.sub ?? null;
      } catch {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"Invalid token"}');
        return;
      }
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body: Buffer.concat(chunks).toString(),
        sub,
        auth: req.headers.authorization ?? '',
      });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":7}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    state,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let tdb: TestDatabase;
let database: Database;
let t: TestApp;
let notifier: Awaited<ReturnType<typeof fakeNotifier>>;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
  notifier = await fakeNotifier();
}, 60_000);
afterAll(async () => {
  await notifier.close();
  await database.close();
  await tdb.cleanup();
});
afterEach(async () => {
  await t?.close();
  notifier.state.hang = false;
});

describe('notifier forwarding', () => {
  it('forwards after the controller auth, with a short-lived token the notifier accepts', async () => {
    t = await testApp(database, {
      gateway: { notifier: notifierProxy({ url: notifier.url, apiSecret: NOTIFIER_KEY, logger }) },
    });
    const channel = {
      name: 'ops',
      channel_type: 'webhook',
      config: { url: 'http://127.0.0.1:9/x' },
      enabled: true,
    };
    const res = await t.request('POST', '/api/notifications/channels?x=1', channel);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: 7 });
    const got = notifier.seen.at(-1);
    expect(got).toMatchObject({ method: 'POST', url: '/api/notifications/channels?x=1', sub: 'admin' });
    expect(JSON.parse(got?.body ?? '')).toEqual(channel);
    // The caller's own token is not handed on.
    expect(got?.auth).not.toContain(t.token);
    const put = await t.request('PUT', '/api/system-notifications/slave_disconnected', { enabled: true });
    expect(put.status).toBe(201);
    expect(notifier.seen.at(-1)?.url).toBe('/api/system-notifications/slave_disconnected');
    // Without a controller token nothing is forwarded.
    const before = notifier.seen.length;
    const anon = await t.request('GET', '/api/notifications/channels', undefined, { authorization: '' });
    expect(anon.status).toBe(401);
    expect(notifier.seen.length).toBe(before);
  });

  it('answers 504 when the notifier does not answer in time and 502 when it is down', async () => {
    t = await testApp(database, {
      gateway: {
        notifier: notifierProxy({ url: notifier.url, apiSecret: NOTIFIER_KEY, logger, timeoutMs: 300 }),
      },
    });
    notifier.state.hang = true;
    const slow = await t.request('GET', '/api/notifications/history?limit=5');
    expect(slow.status).toBe(504);
    expect(slow.body.detail).toMatch(/did not answer/);
    await t.close();
    // A port nobody listens on.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const deadPort = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    t = await testApp(database, {
      gateway: {
        notifier: notifierProxy({ url: `http://127.0.0.1:${deadPort}`, apiSecret: NOTIFIER_KEY, logger }),
      },
    });
    const down = await t.request('GET', '/api/notifications/channels');
    expect(down.status).toBe(502);
    expect(down.body).toEqual({ detail: 'The notifier is unavailable' });
  });

  it('an unknown forwarded route answers 404 with the error body naming the method sent, TRACE too', async () => {
    // The notifier's unknown-route answer is the shared gateway's (runtime createApp): its own app here.
    const backend = createApp({ service: 'notifier', version: '0.0.0-test', logger });
    backend.get('/api/notifications/channels', (c) => c.json([]));
    const notifierServer = await serveApp(backend, { port: 0, host: '127.0.0.1', tls: null });
    t = await testApp(database, {
      gateway: { notifier: notifierProxy({ url: notifierServer.url, apiSecret: NOTIFIER_KEY, logger }) },
    });
    const server = await serveApp(t.app, { port: 0, host: '127.0.0.1', tls: null });
    try {
      const doc = (await (await t.app.request('/api/openapi.json')).json()) as Record<string, unknown>;
      const report = await unknownRoutes(
        { ...doc, paths: {} },
        httpTarget(server.url, { authorization: `Bearer ${t.token}` }),
        ['/api/notifications/no-such-route', '/api/system-notifications/generator_started/no-such-route'],
      );
      expect(report.failures).toEqual([]);
      expect(report.cases).toBe(14);
    } finally {
      await server.close();
      await notifierServer.close();
    }
  });

  it('answers 503 when NOTIFIER_URL is not set', async () => {
    t = await testApp(database);
    const res = await t.request('GET', '/api/notifications/channels');
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/NOTIFIER_URL/);
  });
});
