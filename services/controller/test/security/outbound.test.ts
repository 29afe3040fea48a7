import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Webhooks are URLs a console user types. By default they may not reach loopback, link-local, private
 * or metadata addresses (the controller's own host, the LAN's services, instance credentials);
 * OUTBOUND_ALLOWED_NETWORKS opens ranges for LAN receivers, never the metadata addresses. Such a URL is
 * refused when it is set or tested, with a 422 naming the address and the variable, and a delivery to
 * one is recorded as refused with that reason. Delivery errors are a few words, without the reply.
 */

let tdb: TestDatabase;
let database: Database;
let t: TestApp | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
  receiver = await startReceiver();
}, 60_000);
afterEach(async () => {
  await t?.close();
  t = undefined;
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
  await tdb?.cleanup();
});

async function testWebhooks(allowed: string | undefined, urls: string[]) {
  t = await testApp(database, { config: { outboundAllowedNetworks: allowed } });
  for (const url of urls) {
    const created = await t.request('POST', '/api/webhooks', { url, events: ['generator.*'] });
    expect(created.status, url).toBe(201);
  }
  const res = await t.request('POST', '/api/webhooks/test');
  expect(res.status).toBe(200);
  return res.body.results as { url: string; ok: boolean; error: string | null }[];
}

const refusal = (kind: string, address: string) =>
  `url: ${kind} address ${address} not allowed (OUTBOUND_ALLOWED_NETWORKS)`;

describe('webhook destinations', () => {
  it('by default refuses loopback, private, link-local and metadata addresses when created, with a 422 naming the address', async () => {
    t = await testApp(database, { config: { outboundAllowedNetworks: undefined } });
    const before = receiver.requests.length;
    const cases: [string, string][] = [
      [receiver.url, refusal('loopback', '127.0.0.1')],
      ['http://[::1]:9/hook', refusal('loopback', '::1')],
      ['http://10.1.2.3/hook', refusal('private', '10.1.2.3')],
      ['http://192.168.1.20/hook', refusal('private', '192.168.1.20')],
      ['http://169.254.169.254/latest/meta-data/', refusal('metadata', '169.254.169.254')],
      ['http://[fe80::1]/hook', refusal('link-local', 'fe80::1')],
      ['http://0.0.0.0:8000/api', refusal('unspecified', '0.0.0.0')],
      [
        'http://localhost:9/hook',
        expect.stringMatching(/^url: loopback address (127\.0\.0\.1|::1) not allowed/),
      ],
    ];
    for (const [url, detail] of cases) {
      const res = await t.request('POST', '/api/webhooks', { url, events: ['generator.*'] });
      expect([res.status, res.body], url).toEqual([422, { detail }]);
    }
    expect((await t.request('GET', '/api/webhooks')).body).toEqual([]);
    expect(receiver.requests.length).toBe(before);
  });

  it('a change to a refused address, or enabling a stored one, is refused too; so is a test to it', async () => {
    // Stored while OUTBOUND_ALLOWED_NETWORKS allowed loopback; the controller restarted without it.
    t = await testApp(database, { config: { outboundAllowedNetworks: '127.0.0.0/8' } });
    const kept = (await t.request('POST', '/api/webhooks', { url: receiver.url, enabled: false })).body;
    const lan = (await t.request('POST', '/api/webhooks', { url: 'https://93.184.216.34/x', enabled: false }))
      .body;
    await t.close();
    t = await testApp(database, { reset: false, config: { outboundAllowedNetworks: undefined } });
    const put = await t.request('PUT', `/api/webhooks/${lan.id}`, { url: 'http://192.168.1.20:1880/x' });
    expect([put.status, put.body]).toEqual([422, { detail: refusal('private', '192.168.1.20') }]);
    const enable = await t.request('PUT', `/api/webhooks/${kept.id}`, { enabled: true });
    expect([enable.status, enable.body]).toEqual([422, { detail: refusal('loopback', '127.0.0.1') }]);
    expect((await t.request('GET', `/api/webhooks/${lan.id}`)).body.url).toBe('https://93.184.216.34/x');
    await t.close();
    t = await testApp(database, { reset: false, config: { outboundAllowedNetworks: '127.0.0.0/8' } });
    expect((await t.request('PUT', `/api/webhooks/${kept.id}`, { enabled: true })).status).toBe(200);
    await t.close();
    t = await testApp(database, { reset: false, config: { outboundAllowedNetworks: undefined } });
    const before = receiver.requests.length;
    const tested = await t.request('POST', '/api/webhooks/test');
    expect(tested.status).toBe(422);
    expect(tested.body.detail).toBe(
      `webhook ${kept.id} (${receiver.url}): loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)`,
    );
    expect(receiver.requests.length).toBe(before);
  });

  it('a delivery to a refused address is recorded as refused with the reason, and not retried', async () => {
    t = await testApp(database, { config: { outboundAllowedNetworks: '127.0.0.0/8' } });
    const hook = (await t.request('POST', '/api/webhooks', { url: receiver.url, events: ['generator.*'] }))
      .body;
    await t.close();
    t = await testApp(database, { reset: false, config: { outboundAllowedNetworks: undefined } });
    const before = receiver.requests.length;
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/generator/start', {});
    const deliveries = async () => (await t!.request('GET', `/api/webhooks/${hook.id}/deliveries`)).body;
    await waitFor(async () => (await deliveries())[0]?.attempts === 1);
    expect((await deliveries())[0]).toMatchObject({
      event: 'generator.started.manual',
      status: 'refused',
      attempts: 1,
      next_attempt_at: null,
      last_status_code: null,
      last_error: 'loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)',
    });
    t.clock.advance(3_600_000);
    await new Promise((r) => setTimeout(r, 300));
    expect((await deliveries())[0].attempts).toBe(1);
    expect(receiver.requests.length).toBe(before);
  });

  it('OUTBOUND_ALLOWED_NETWORKS lets a listed range through, never the metadata address', async () => {
    const before = receiver.requests.length;
    const results = await testWebhooks('127.0.0.0/8, 169.254.0.0/16', [receiver.url]);
    expect(results.map((r) => [r.ok, r.error])).toEqual([[true, null]]);
    expect(receiver.requests.length).toBe(before + 1);
    const metadata = await t!.request('POST', '/api/webhooks', {
      url: 'http://169.254.169.254/latest/meta-data/',
    });
    expect([metadata.status, metadata.body]).toEqual([
      422,
      { detail: refusal('metadata', '169.254.169.254') },
    ]);
  });

  it('a failure is reported in a few words, without the address, port or reply', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    receiver.state.status = 500;
    try {
      const results = await testWebhooks('127.0.0.0/8', [receiver.url, `http://127.0.0.1:${port}/closed`]);
      expect(results.map((r) => r.error)).toEqual(['HTTP 500', 'ECONNREFUSED']);
    } finally {
      receiver.state.status = 200;
    }
  });

  it('a bad OUTBOUND_ALLOWED_NETWORKS stops the start with one line naming it', async () => {
    const { ControllerEnv } = await import('../../src/config.js');
    const parsed = ControllerEnv.safeParse({
      JWT_SECRET: 'x'.repeat(32),
      DATABASE_URL: 'postgres://x',
      OUTBOUND_ALLOWED_NETWORKS: '10.0.0.0/8, the-lan',
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['OUTBOUND_ALLOWED_NETWORKS'],
      message: '"the-lan" is not an IP address or CIDR range',
    });
  });
});
