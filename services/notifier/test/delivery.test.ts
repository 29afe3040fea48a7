import {
  type HttpPeer,
  type SmtpPeer,
  startHttpPeer,
  startSmtpPeer,
} from '@outpost/notification-senders/testing';
import { ManualClock } from '@outpost/runtime/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningNotifier } from '../src/app.js';
import { client, embeddedBroker, eventually, launchNotifier, publishEvent } from './helpers/notifier.js';

let broker: Awaited<ReturnType<typeof embeddedBroker>>;
let peer: HttpPeer;
let smtp: SmtpPeer;
let notifier: RunningNotifier;
let api: Awaited<ReturnType<typeof client>>;
const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
const ids: Record<string, number> = {};

beforeAll(async () => {
  broker = await embeddedBroker();
  peer = await startHttpPeer((r) => (r.path === '/fail' ? { status: 502, body: 'bad gateway' } : undefined));
  smtp = await startSmtpPeer();
  const base = peer.url;
  notifier = await launchNotifier({
    mqttUrl: broker.url,
    clock,
    baseUrls: { telegram: base, discord: base, slack: base, pushover: base, ntfy: base },
  });
  api = await client(notifier.url);
  const channels: Record<string, unknown> = {
    telegram: { bot_token: '111:tgTOKEN', chat_id: '-1001' },
    slack: { webhook_url: 'https://hooks.slack.com/services/T0/B0/XYZ' },
    discord: { webhook_url: 'https://discord.com/api/webhooks/55/dTOKEN' },
    email: {
      smtp_host: '127.0.0.1',
      smtp_port: smtp.port,
      from_email: 'gen@site.test',
      to_emails: ['ops@site.test'],
      require_tls: false,
    },
    pushover: { user_key: 'uKEY', api_token: 'aTOKEN' },
    webhook: { url: `${base}/hook`, method: 'POST', headers: { 'X-Auth': 's3cret' } },
    apprise: { urls: [`json://127.0.0.1:${peer.port}/apprise`, 'ntfy://alerts-topic'] },
  };
  for (const [type, config] of Object.entries(channels)) {
    const r = await api.post('/api/notifications/channels', { name: type, channel_type: type, config });
    expect(r.status, type).toBe(201);
    ids[type] = r.body.id;
  }
  ids.failing = (
    await api.post('/api/notifications/channels', {
      name: 'failing',
      channel_type: 'webhook',
      config: { url: `${base}/fail` },
    })
  ).body.id;
});
afterAll(async () => {
  await notifier?.close();
  await smtp?.close();
  await peer?.close();
  await broker?.close();
});

const byPath = (p: string) => peer.requests.filter((r) => r.path === p);

describe('delivery of bus events to every channel type', () => {
  it('renders the configured template and delivers in each provider format; a failing channel retries, then fails', async () => {
    const put = await api.put('/api/system-notifications/generator_started', {
      enabled: true,
      channel_ids: Object.values(ids),
      group_ids: [],
      title_template: 'Generator run {{run_id}}',
      body_template: 'Started at {{start_time}}',
    });
    expect(put.status).toBe(200);
    const eventId = await publishEvent(broker.url, 'generator_started', {
      run_id: 7,
      start_time: 1767225600,
      trigger: 'bms',
    });
    const title = 'Generator run 7';
    const body = 'Started at 2026-01-01 00:00:00 UTC';

    await eventually(async () => peer.requests.length >= 8 && (await smtp.waitFor(1)).length >= 1);
    const [tg] = byPath('/bot111:tgTOKEN/sendMessage');
    expect(tg!.json).toEqual({
      chat_id: '-1001',
      text: `${title}\n\n${body}`,
      disable_web_page_preview: true,
    });
    expect(byPath('/services/T0/B0/XYZ')[0]!.json).toEqual({ text: `*${title}*\n${body}` });
    expect(byPath('/api/webhooks/55/dTOKEN')[0]!.json).toMatchObject({ content: `**${title}**\n${body}` });
    expect(byPath('/1/messages.json')[0]!.form).toEqual({
      token: 'aTOKEN',
      user: 'uKEY',
      title,
      message: body,
    });
    const hook = byPath('/hook')[0]!;
    expect(hook.headers['x-auth']).toBe('s3cret');
    expect(hook.json).toEqual({
      title,
      body,
      event: 'generator_started',
      event_id: eventId,
      controller_id: 'main',
      timestamp: 1767225600,
    });
    expect(byPath('/apprise')[0]!.json).toEqual({ version: '1.0', title, message: body, type: 'info' });
    expect(byPath('/')[0]!.json).toEqual({ topic: 'alerts-topic', title, message: body });
    const [mail] = smtp.messages();
    expect(mail).toMatchObject({
      mail_from: 'gen@site.test',
      rcpt_tos: ['ops@site.test'],
      to: 'ops@site.test',
      subject: title,
    });
    expect(mail!.body.trim()).toBe(body);

    // The failing channel: attempt 1 failed; each backoff step brings one more attempt until the last.
    await eventually(async () => byPath('/fail').length === 1);
    for (let attempt = 2; attempt <= 4; attempt++) {
      await notifier.dispatcher.settled();
      clock.advance(150_000);
      await eventually(async () => byPath('/fail').length === attempt);
    }
    await notifier.dispatcher.settled();
    const history = (await api.get('/api/notifications/history?limit=100')).body as Array<
      Record<string, unknown>
    >;
    const failing = history.filter((h) => h.channel_id === ids.failing).reverse();
    expect(failing.map((h) => h.status)).toEqual(['retrying', 'retrying', 'retrying', 'failed']);
    expect(failing[3]).toMatchObject({
      attempt: 4,
      // A webhook's reply body is not echoed to the user (it may be a page from inside the network).
      error: 'webhook: HTTP 502',
      event_id: eventId,
      source: 'generator_started',
    });
    const sent = history.filter((h) => h.status === 'sent' && h.event_id === eventId);
    expect(sent.map((h) => h.channel_type).sort()).toEqual([
      'apprise',
      'discord',
      'email',
      'pushover',
      'slack',
      'telegram',
      'webhook',
    ]);
    expect(peer.requests.length).toBe(8 + 3);
  });

  it('renders every template variable of the spec for generator and system events', async () => {
    const all =
      'run_id={{run_id}} start={{start_time}} stop={{stop_time}} runtime={{runtime}} reason={{reason}} ' +
      'fuel={{fuel_gallons}} {{fuel_type}} ts={{timestamp}} status={{status}} details={{details}}';
    for (const event of ['generator_stopped', 'slave_connected']) {
      const r = await api.put(`/api/system-notifications/${event}`, {
        enabled: true,
        channel_ids: [ids.webhook],
        group_ids: [],
        title_template: `{{status}} ${event}`,
        body_template: all,
      });
      expect(r.status).toBe(200);
    }
    const before = byPath('/hook').length;
    await publishEvent(broker.url, 'generator_stopped', {
      run_id: 8,
      trigger: 'manual',
      reason: 'manual',
      start_time: 1767225600,
      stop_time: 1767229323,
      runtime: 3723,
      fuel_gallons: 1.5,
      fuel_type: 'natural_gas',
      details: 'stopped from the dashboard',
    });
    await publishEvent(broker.url, 'slave_connected', {
      timestamp: 1767230000,
      status: 'connected',
      details: 'relay node connected',
    });
    await eventually(async () => byPath('/hook').length >= before + 2);
    const bodies = byPath('/hook')
      .slice(before)
      .map((r) => r.json as { title: string; body: string; event: string });
    const stopped = bodies.find((b) => b.event === 'generator_stopped')!;
    expect(stopped.body).toBe(
      'run_id=8 start=2026-01-01 00:00:00 UTC stop=2026-01-01 01:02:03 UTC runtime=1h 02m 03s reason=manual ' +
        'fuel=1.50 natural_gas ts=2026-01-01 00:00:00 UTC status=n/a details=stopped from the dashboard',
    );
    const connected = bodies.find((b) => b.event === 'slave_connected')!;
    expect(connected.title).toBe('connected slave_connected');
    expect(connected.body).toContain(
      'ts=2026-01-01 01:13:20 UTC status=connected details=relay node connected',
    );
    for (const b of bodies) expect(b.body + b.title).not.toContain('{{');
  });

  it('a malformed event on the bus is dropped without effect', async () => {
    const before = peer.requests.length;
    const mqtt = await import('mqtt');
    const c = await mqtt.default.connectAsync(broker.url, { protocolVersion: 4 });
    await c.publishAsync('outpost/controller/main/event/generator_started', '{"event": 1}', { qos: 1 });
    await c.publishAsync('outpost/controller/main/event/generator_started', 'not json', { qos: 1 });
    await c.endAsync();
    const h = await fetch(`${notifier.url}/health`);
    expect(h.status).toBe(200);
    await notifier.dispatcher.settled();
    expect(peer.requests.length).toBe(before);
  });
});
