/**
 * Channel targets are addresses a user types. By default the notifier refuses loopback, private,
 * link-local and metadata addresses, for webhooks, notifier URLs and SMTP alike, and sends them
 * nothing; OUTBOUND_ALLOWED_NETWORKS opens ranges for LAN targets. What a user reads back is a few
 * words: never the reply of a server inside the network.
 */
import { type HttpPeer, type SmtpPeer, startHttpPeer, startSmtpPeer } from '@outpost/notification-senders/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningNotifier } from '../../src/app.js';
import { client, embeddedBroker, launchNotifier } from '../helpers/notifier.js';

let broker: Awaited<ReturnType<typeof embeddedBroker>>;
let strict: RunningNotifier;
let lan: RunningNotifier;
let peer: HttpPeer;
let smtp: SmtpPeer;

beforeAll(async () => {
  broker = await embeddedBroker();
  peer = await startHttpPeer((req) =>
    req.path.startsWith('/internal')
      ? { status: 500, body: 'internal admin page: token=INSIDE-SECRET' }
      : undefined,
  );
  smtp = await startSmtpPeer();
  // An empty variable is unset: the default policy.
  strict = await launchNotifier({ mqttUrl: broker.url, env: { OUTBOUND_ALLOWED_NETWORKS: '' } });
  lan = await launchNotifier({ mqttUrl: broker.url, env: { OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' } });
});
afterAll(async () => {
  await strict?.close();
  await lan?.close();
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

describe('notification targets', () => {
  it('by default refuses loopback and metadata targets of every kind, and sends them nothing', async () => {
    const before = peer.requests.length;
    const mails = smtp.messages().length;
    const refused = 'loopback address not allowed (OUTBOUND_ALLOWED_NETWORKS)';
    expect(await testChannel(strict, 'webhook', { url: `${peer.url}/hook` })).toMatchObject({
      status: 'failed',
      error: `webhook: ${refused}`,
    });
    expect(await testChannel(strict, 'apprise', { urls: [`json://127.0.0.1:${peer.port}/x`] })).toMatchObject(
      {
        status: 'failed',
        error: `json: ${refused}`,
      },
    );
    expect(
      await testChannel(strict, 'email', {
        smtp_host: '127.0.0.1',
        smtp_port: smtp.port,
        from_email: 'gen@site.test',
        to_emails: ['ops@site.test'],
        require_tls: false,
      }),
    ).toMatchObject({ status: 'failed', error: `email: ${refused}` });
    expect(
      await testChannel(strict, 'webhook', { url: 'http://169.254.169.254/latest/meta-data/iam' }),
    ).toMatchObject({
      status: 'failed',
      error: 'webhook: metadata address not allowed (OUTBOUND_ALLOWED_NETWORKS)',
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(peer.requests.length).toBe(before);
    expect(smtp.messages().length).toBe(mails);
  });

  it('with the range allowed it delivers, and an error reply is reported without its body', async () => {
    expect(await testChannel(lan, 'webhook', { url: `${peer.url}/hook` })).toMatchObject({ status: 'sent' });
    const failed = await testChannel(lan, 'webhook', { url: `${peer.url}/internal` });
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('webhook: HTTP 500');
  });
});
