import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { postWebhook, retryDelayMs } from '../../src/outbox/webhook-client.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

let tdb: TestDatabase;
let database: Database;
let t: TestApp;
let rx: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
  rx = await startReceiver();
}, 60_000);
afterAll(async () => {
  await rx.close();
  await database.close();
  await tdb.cleanup();
});
afterEach(async () => {
  await t?.close();
  rx.requests.length = 0;
  rx.state.status = 200;
  rx.state.hang = false;
});

const SECRET = 'webhook-secret-123';

describe('webhooks', () => {
  it('CRUD with validation; a generated secret is shown once', async () => {
    t = await testApp(database);
    expect((await t.request('POST', '/api/webhooks', { url: 'ftp://example.test/x' })).status).toBe(422);
    const gen = await t.request('POST', '/api/webhooks', { url: rx.url });
    expect(gen.status).toBe(201);
    expect(gen.body.secret).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect((await t.request('GET', `/api/webhooks/${gen.body.id}`)).body.secret).toBeUndefined();
    const upd = await t.request('PUT', `/api/webhooks/${gen.body.id}`, {
      enabled: false,
      events: ['generator.stopped.*'],
    });
    expect(upd.body).toMatchObject({ enabled: false, events: ['generator.stopped.*'] });
    expect((await t.request('GET', '/api/webhooks')).body).toHaveLength(1);
    expect((await t.request('DELETE', `/api/webhooks/${gen.body.id}`)).status).toBe(200);
    expect((await t.request('DELETE', `/api/webhooks/${gen.body.id}`)).status).toBe(404);
    expect((await t.request('GET', '/api/webhooks/abc')).status).toBe(422);
  });

  it('a start is POSTed as {event, timestamp, data} with an HMAC-SHA256 signature of the exact body', async () => {
    t = await testApp(database);
    await t.request('POST', '/api/webhooks', {
      url: rx.url,
      secret: SECRET,
      events: ['generator.started.*'],
    });
    await t.request('POST', '/api/generator/arm');
    const start = await t.request('POST', '/api/generator/start', {});
    await waitFor(() => rx.requests.length >= 1);
    const req = rx.requests[0]!;
    const body = JSON.parse(req.body);
    expect(body).toEqual({
      event: 'generator.started.manual',
      timestamp: expect.any(Number),
      data: expect.objectContaining({ run_id: start.body.run_id, trigger: 'manual' }),
    });
    const expected = `sha256=${createHmac('sha256', SECRET).update(req.body).digest('hex')}`;
    expect(req.headers['x-outpost-signature']).toBe(expected);
    expect(req.headers['x-outpost-timestamp']).toBe(String(body.timestamp));
    expect(req.headers['content-type']).toBe('application/json');
    // The stop does not match this webhook's filter.
    await t.request('POST', '/api/generator/stop', {});
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.requests).toHaveLength(1);
  });

  it('a webhook disabled, enabled and deleted while the controller runs is followed at the next event', async () => {
    t = await testApp(database);
    await t.request('POST', '/api/generator/arm');
    // An event first, so the enabled webhooks have been read before the changes below.
    await t.request('POST', '/api/generator/start', {});
    await t.request('POST', '/api/generator/stop', {});
    const hook = await t.request('POST', '/api/webhooks', {
      url: rx.url,
      secret: SECRET,
      events: ['generator.started.*'],
      enabled: false,
    });
    expect(hook.status).toBe(201);
    await t.request('POST', '/api/generator/start', {});
    await t.request('POST', '/api/generator/stop', {});
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.requests).toHaveLength(0);

    await t.request('PUT', `/api/webhooks/${hook.body.id}`, { enabled: true });
    await t.request('POST', '/api/generator/start', {});
    await waitFor(() => rx.requests.length === 1);
    await t.request('POST', '/api/generator/stop', {});

    await t.request('DELETE', `/api/webhooks/${hook.body.id}`);
    await t.request('POST', '/api/generator/start', {});
    await t.request('POST', '/api/generator/stop', {});
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.requests).toHaveLength(1);
  });

  it('a failing receiver is retried with backoff and the delivery log shows each attempt', async () => {
    t = await testApp(database);
    const hook = await t.request('POST', '/api/webhooks', { url: rx.url, secret: SECRET });
    rx.state.status = 500;
    await t.request('POST', '/api/generator/stop', {});
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/generator/start', {});
    await waitFor(() => rx.requests.length >= 1);
    await waitFor(
      async () =>
        (await t.request('GET', `/api/webhooks/${hook.body.id}/deliveries`)).body[0]?.attempts === 1,
    );
    const first = (await t.request('GET', `/api/webhooks/${hook.body.id}/deliveries`)).body[0];
    expect(first).toMatchObject({
      event: 'generator.started.manual',
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      last_error: 'HTTP 500',
    });
    expect(first.next_attempt_at - Math.floor(t.clock.now() / 1000)).toBe(10);
    rx.state.status = 204;
    t.clock.advance(10_000);
    await waitFor(
      async () =>
        (await t.request('GET', `/api/webhooks/${hook.body.id}/deliveries`)).body[0]?.status === 'delivered',
    );
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests[1]!.body).toBe(rx.requests[0]!.body);
  });

  it('gives up after the last retry', () => {
    expect([1, 2, 3, 4, 5, 6].map(retryDelayMs)).toEqual([
      10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000,
    ]);
    expect(retryDelayMs(7)).toBeNull();
  });

  it('a receiver that never answers times out', async () => {
    rx.state.hang = true;
    const res = await postWebhook(rx.url, SECRET, { event: 'x', timestamp: 1, data: {} }, { timeoutMs: 200 });
    expect(res).toEqual({ ok: false, status: null, error: 'timed out' });
  });

  it('POST /api/dev/webhook/test sends a signed webhook.test to every enabled webhook', async () => {
    t = await testApp(database);
    expect((await t.request('POST', '/api/dev/webhook/test')).status).toBe(409);
    await t.request('POST', '/api/webhooks', { url: rx.url, secret: SECRET });
    const res = await t.request('POST', '/api/dev/webhook/test');
    expect(res.body).toMatchObject({ sent: 1, results: [{ ok: true, status: 200, error: null }] });
    expect(JSON.parse(rx.requests[0]!.body)).toMatchObject({ event: 'webhook.test' });
  });
});
