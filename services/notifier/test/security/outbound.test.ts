/**
 * Channel targets are addresses a user types. By default the notifier refuses loopback, private,
 * link-local and metadata addresses, for webhooks, notifier URLs and SMTP alike: a channel aimed at one
 * is refused when it is created, changed or tested, with a 422 naming the address and
 * OUTBOUND_ALLOWED_NETWORKS, and a delivery to one (a channel stored while the range was allowed) is
 * recorded in the history with that reason. Nothing is ever sent to them. OUTBOUND_ALLOWED_NETWORKS
 * opens ranges for LAN targets. What a user reads back is a few words: never the reply of a server
 * inside the network.
 */
import {
  type HttpPeer,
  type SmtpPeer,
  startHttpPeer,
  startSmtpPeer,
} from '@outpost/notification-senders/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningNotifier } from '../../src/app.js';
import { freshPostgres } from '../helpers/databases.js';
import { client, embeddedBroker, launchNotifier } from '../helpers/notifier.js';

let broker: Awaited<ReturnType<typeof embeddedBroker>>;
let strict: RunningNotifier;
let lan: RunningNotifier;
let peer: HttpPeer;
let smtp: SmtpPeer;
let shared: Awaited<ReturnType<typeof freshPostgres>>;

beforeAll(async () => {
  broker = await embeddedBroker();
  peer = await startHttpPeer((req) =>
    req.path.startsWith('/internal')
      ? { status: 500, body: 'internal admin page: token=INSIDE-SECRET' }
      : undefined,
  );
  smtp = await startSmtpPeer();
  // One database, as one notifier restarted with another OUTBOUND_ALLOWED_NETWORKS would see it.
  shared = await freshPostgres();
  // An empty variable is unset: the default policy.
  strict = await launchNotifier({
    mqttUrl: broker.url,
    databaseUrl: shared.url,
    env: { OUTBOUND_ALLOWED_NETWORKS: '' },
  });
  lan = await launchNotifier({
    mqttUrl: broker.url,
    databaseUrl: shared.url,
    env: { OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' },
  });
});
afterAll(async () => {
  await strict?.close();
  await lan?.close();
  await shared?.drop();
  await peer?.close();
  await smtp?.close();
  await broker?.close();
});

async function testChannel(n: RunningNotifier, channel_type: string, config: Record<string, unknown>) {
  const api = await client(n.url);
  const created = await api.post('/api/notifications/channels', { name: channel_type, channel_type, config });
  expect(created.status).toBe(201);
  const res = await api.post(`/api/notifications/channels/${created.body.id}/test`);
  return res.body.results[0] as { status: string; error: string | null };
}

const refusal = (kind: string, address: string) =>
  `config: ${kind} address ${address} not allowed (OUTBOUND_ALLOWED_NETWORKS)`;

describe('notification targets', () => {
  it('by default refuses a channel aimed at a loopback, private or metadata address of every kind when created, with a 422 naming it', async () => {
    const api = await client(strict.url);
    const before = peer.requests.length;
    const mails = smtp.messages().length;
    const cases: [string, Record<string, unknown>, string][] = [
      ['webhook', { url: `${peer.url}/hook` }, refusal('loopback', '127.0.0.1')],
      ['apprise', { urls: [`json://127.0.0.1:${peer.port}/x`] }, refusal('loopback', '127.0.0.1')],
      [
        'email',
        {
          smtp_host: '127.0.0.1',
          smtp_port: smtp.port,
          from_email: 'gen@site.test',
          to_emails: ['ops@site.test'],
          require_tls: false,
        },
        refusal('loopback', '127.0.0.1'),
      ],
      ['webhook', { url: 'http://192.168.1.20:1880/endpoint/outpost' }, refusal('private', '192.168.1.20')],
      ['webhook', { url: 'http://[fe80::1]/hook' }, refusal('link-local', 'fe80::1')],
      [
        'webhook',
        { url: 'http://169.254.169.254/latest/meta-data/iam' },
        refusal('metadata', '169.254.169.254'),
      ],
    ];
    for (const [channel_type, config, detail] of cases) {
      const res = await api.post('/api/notifications/channels', { name: channel_type, channel_type, config });
      expect([res.status, res.body], JSON.stringify(config)).toEqual([422, { detail }]);
    }
    expect((await api.get('/api/notifications/channels')).body).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(peer.requests.length).toBe(before);
    expect(smtp.messages().length).toBe(mails);
  });

  it('a channel stored while its range was allowed is refused when changed or tested, and a delivery to it is in the history with the reason', async () => {
    const open = await client(lan.url);
    const ch = (
      await open.post('/api/notifications/channels', {
        name: 'node-red',
        channel_type: 'webhook',
        config: { url: `${peer.url}/hook` },
      })
    ).body;
    const api = await client(strict.url);
    const before = peer.requests.length;
    const put = await api.put(`/api/notifications/channels/${ch.id}`, {
      name: 'node-red',
      channel_type: 'webhook',
      config: { url: `http://10.0.0.7:1880/hook` },
      enabled: true,
    });
    expect([put.status, put.body]).toEqual([422, { detail: refusal('private', '10.0.0.7') }]);
    const tested = await api.post(`/api/notifications/channels/${ch.id}/test`);
    expect([tested.status, tested.body]).toEqual([422, { detail: refusal('loopback', '127.0.0.1') }]);
    const sent = await api.post('/api/notifications/send', { title: 't', body: 'b', channel_ids: [ch.id] });
    expect(sent.body.results).toEqual([
      {
        channel_id: ch.id,
        status: 'failed',
        error: 'webhook: loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)',
      },
    ]);
    const history = (await api.get('/api/notifications/history?limit=1')).body;
    expect(history[0]).toMatchObject({
      channel_id: ch.id,
      status: 'failed',
      error: 'webhook: loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)',
    });
    expect(peer.requests.length).toBe(before);
    await open.del(`/api/notifications/channels/${ch.id}`);
  });

  it('with the range allowed it delivers, and an error reply is reported without its body', async () => {
    expect(await testChannel(lan, 'webhook', { url: `${peer.url}/hook` })).toMatchObject({ status: 'sent' });
    const failed = await testChannel(lan, 'webhook', { url: `${peer.url}/internal` });
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('webhook: HTTP 500');
  });
});
