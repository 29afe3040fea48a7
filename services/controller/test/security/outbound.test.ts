import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { startReceiver } from '../helpers/receiver.js';

/**
 * Webhooks are URLs a console user types. By default they may not reach loopback, link-local, private
 * or metadata addresses (the controller's own host, the LAN's services, instance credentials);
 * OUTBOUND_ALLOWED_NETWORKS opens ranges for LAN receivers, never the metadata addresses. Errors shown
 * to the user are a few words, without addresses or the receiver's reply.
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

describe('webhook destinations', () => {
  it('by default refuses loopback, private, link-local and metadata addresses, and sends them nothing', async () => {
    const before = receiver.requests.length;
    const results = await testWebhooks(undefined, [
      receiver.url,
      'http://[::1]:9/hook',
      'http://10.1.2.3/hook',
      'http://192.168.1.20/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/hook',
      'http://0.0.0.0:8000/api',
    ]);
    expect(results.map((r) => [r.ok, r.error])).toEqual([
      [false, 'loopback address not allowed (OUTBOUND_ALLOWED_NETWORKS)'],
      [false, 'loopback address not allowed (OUTBOUND_ALLOWED_NETWORKS)'],
      [false, 'private address not allowed (OUTBOUND_ALLOWED_NETWORKS)'],
      [false, 'private address not allowed (OUTBOUND_ALLOWED_NETWORKS)'],
      [false, 'metadata address not allowed (OUTBOUND_ALLOWED_NETWORKS)'],
      [false, 'linkLocal address not allowed (OUTBOUND_ALLOWED_NETWORKS)'],
      [false, 'unspecified address not allowed (OUTBOUND_ALLOWED_NETWORKS)'],
    ]);
    expect(receiver.requests.length).toBe(before);
  });

  it('OUTBOUND_ALLOWED_NETWORKS lets a listed range through, never the metadata address', async () => {
    const before = receiver.requests.length;
    const results = await testWebhooks('127.0.0.0/8, 169.254.0.0/16', [
      receiver.url,
      'http://169.254.169.254/latest/meta-data/',
    ]);
    expect(results.map((r) => [r.ok, r.error])).toEqual([
      [true, null],
      [false, 'metadata address not allowed (OUTBOUND_ALLOWED_NETWORKS)'],
    ]);
    expect(receiver.requests.length).toBe(before + 1);
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
