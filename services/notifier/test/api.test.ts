import { NOTIFICATION_EVENTS } from '@outpost/contracts';
import { startHttpPeer } from '@outpost/notification-senders/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningNotifier } from '../src/app.js';
import { client, embeddedBroker, launchNotifier, NOTIFIER_API_SECRET, token } from './helpers/notifier.js';

let broker: Awaited<ReturnType<typeof embeddedBroker>>;
let notifier: RunningNotifier;
let api: Awaited<ReturnType<typeof client>>;
let peer: Awaited<ReturnType<typeof startHttpPeer>>;

beforeAll(async () => {
  broker = await embeddedBroker();
  peer = await startHttpPeer();
  notifier = await launchNotifier({ mqttUrl: broker.url, baseUrls: { telegram: peer.url } });
  api = await client(notifier.url);
});
afterAll(async () => {
  await notifier?.close();
  await peer?.close();
  await broker?.close();
});

const telegram = {
  name: 'Phone',
  channel_type: 'telegram',
  config: { bot_token: '123456:SECRETTOKENabcd', chat_id: '42' },
};

describe('authentication', () => {
  it('refuses the API without a valid HS256 bearer token and leaves /health open', async () => {
    const url = `${notifier.url}/api/notifications/channels`;
    expect((await fetch(url)).status).toBe(401);
    const wrongKey = await fetch(url, {
      headers: { authorization: `Bearer ${await token('another-secret-value-here')}` },
    });
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.json()).toEqual({ detail: 'Invalid token' });
    const wrongAlg = await fetch(url, {
      headers: { authorization: `Bearer ${await token(NOTIFIER_API_SECRET, 'HS512')}` },
    });
    expect(wrongAlg.status).toBe(401);
    expect((await fetch(`${notifier.url}/api/system-notifications`)).status).toBe(401);
    expect((await api.get('/api/notifications/channels')).status).toBe(200);
    const open = await fetch(`${notifier.url}/health`);
    expect(open.status).toBe(200);
    expect(await open.json()).toEqual({ status: 'healthy' });
    const health = await fetch(`${notifier.url}/health`, {
      headers: { authorization: `Bearer ${await token(NOTIFIER_API_SECRET)}` },
    });
    expect(await health.json()).toMatchObject({
      status: 'healthy',
      service: 'notifier',
      broker: 'connected',
      database: 'connected',
    });
  });
});

describe('channels', () => {
  it('creates, reads (secrets masked), updates keeping secrets, and deletes a channel', async () => {
    const created = await api.post('/api/notifications/channels', telegram);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Phone',
      channel_type: 'telegram',
      enabled: true,
      config: { bot_token: '****abcd', chat_id: '42' },
    });
    const id = created.body.id as number;
    // The first channel of a fresh install becomes the channel of every event nobody configured.
    expect(created.body.default_for_events).toEqual([...NOTIFICATION_EVENTS]);
    const settings = (await api.get('/api/system-notifications')).body as { channel_ids: number[] }[];
    expect(settings.every((s) => s.channel_ids.length === 1 && s.channel_ids[0] === id)).toBe(true);
    const second = await api.post('/api/notifications/channels', { ...telegram, name: 'Second' });
    expect(second.body.default_for_events).toEqual([]);
    expect((await api.del(`/api/notifications/channels/${second.body.id}`)).status).toBe(204);
    const list = await api.get('/api/notifications/channels');
    expect(JSON.stringify(list.body)).not.toContain('SECRETTOKEN');
    const one = await api.get(`/api/notifications/channels/${id}`);
    expect(one.body.config.bot_token).toBe('****abcd');

    // Echo the masked form back with a new chat id: the stored token still works.
    const upd = await api.put(`/api/notifications/channels/${id}`, {
      ...telegram,
      config: { ...one.body.config, chat_id: '43' },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.config).toEqual({ bot_token: '****abcd', chat_id: '43' });
    const test = await api.post(`/api/notifications/channels/${id}/test`);
    expect(test.body.results).toEqual([{ channel_id: id, status: 'sent', error: null }]);
    const req = peer.requests.at(-1)!;
    expect(req.path).toBe('/bot123456:SECRETTOKENabcd/sendMessage');
    expect(req.json).toMatchObject({ chat_id: '43' });

    expect((await api.del(`/api/notifications/channels/${id}`)).status).toBe(204);
    expect((await api.get(`/api/notifications/channels/${id}`)).status).toBe(404);
    expect((await api.del(`/api/notifications/channels/${id}`)).status).toBe(404);
  });

  it('refuses bad configs with 422 naming the field, and stores nothing', async () => {
    const before = (await api.get('/api/notifications/channels')).body.length;
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', channel_type: 'telegram', config: { chat_id: '1' } }, 'config.bot_token'],
      [{ name: 'x', channel_type: 'slack', config: { webhook_url: 'not a url' } }, 'config.webhook_url'],
      [{ name: 'x', channel_type: 'discord', config: { webhook_url: 'ftp://x/y' } }, 'config.webhook_url'],
      [
        {
          name: 'x',
          channel_type: 'email',
          config: { smtp_host: 'h', smtp_port: 70000, from_email: 'a@b.c', to_emails: ['d@e.f'] },
        },
        'config.smtp_port',
      ],
      [
        {
          name: 'x',
          channel_type: 'email',
          config: { smtp_host: 'h', smtp_port: 25, from_email: 'a@b.c', to_emails: ['nope'] },
        },
        'config.to_emails.0',
      ],
      [{ name: 'x', channel_type: 'pushover', config: { user_key: 'u' } }, 'config.api_token'],
      [{ name: 'x', channel_type: 'apprise', config: { urls: ['tgram://notatoken/1'] } }, 'config.urls.0'],
      [{ name: 'x', channel_type: 'apprise', config: { urls: [] } }, 'config.urls'],
      [{ name: 'x', channel_type: 'webhook', config: { url: 'http://x/y', method: 'GET' } }, 'config.method'],
      [{ name: 'x', channel_type: 'carrier-pigeon', config: {} }, 'channel_type'],
      [{ channel_type: 'webhook', config: { url: 'http://x/y' } }, 'name'],
      [{ name: 'x', channel_type: 'webhook', config: { url: 'http://x/y', extra: 1 } }, 'config'],
    ];
    for (const [body, field] of cases) {
      const r = await api.post('/api/notifications/channels', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.detail, JSON.stringify(body)).toMatch(
        new RegExp(`(^|; )${field.replace(/\./g, '\\.')}\\b`),
      );
    }
    const bad = await fetch(`${notifier.url}/api/notifications/channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(bad.status).toBe(400);
    expect((await api.get('/api/notifications/channels')).body.length).toBe(before);
  });
});

describe('groups, event settings, send and history', () => {
  it('manages groups and validates their channel ids', async () => {
    const ch = (
      await api.post('/api/notifications/channels', {
        name: 'hook',
        channel_type: 'webhook',
        config: { url: `${peer.url}/hook` },
      })
    ).body;
    expect(
      (await api.post('/api/notifications/groups', { name: 'ops', channel_ids: [ch.id, 9999] })).status,
    ).toBe(422);
    const g = await api.post('/api/notifications/groups', {
      name: 'ops',
      description: 'on call',
      channel_ids: [ch.id],
    });
    expect(g.status).toBe(201);
    expect(g.body).toMatchObject({
      name: 'ops',
      description: 'on call',
      channel_ids: [ch.id],
      enabled: true,
    });
    const upd = await api.put(`/api/notifications/groups/${g.body.id}`, {
      name: 'ops2',
      channel_ids: [],
      enabled: false,
    });
    expect(upd.body).toMatchObject({ name: 'ops2', channel_ids: [], enabled: false });
    expect((await api.get('/api/notifications/groups')).body.map((x: { id: number }) => x.id)).toContain(
      g.body.id,
    );
    expect((await api.del(`/api/notifications/groups/${g.body.id}`)).status).toBe(204);
    expect((await api.get(`/api/notifications/groups/${g.body.id}`)).status).toBe(404);
  });

  it('lists every event setting with defaults and refuses unknown events, variables and ids with 422', async () => {
    const all = await api.get('/api/system-notifications');
    // The spec's 14 events, hoa_position_changed, the 8 generator health events, the link's three alarms
    // (relay_not_confirmed, relay_node_report_unverified, lease_not_published) and the start conditions'
    // source stale/restored, and the generator's own controller (its mode and its alarms by level); the
    // first channel (deleted since) set them all.
    expect(all.body).toHaveLength(33);
    expect(all.body.map((e: { event: string }) => e.event)).toEqual(
      expect.arrayContaining([
        'relay_node_report_unverified',
        'lease_not_published',
        'genset_not_in_auto',
        'genset_shutdown',
      ]),
    );
    expect(all.body[0]).toMatchObject({
      event: 'generator_started',
      enabled: true,
      configured: true,
      channel_ids: [],
      title_template: 'Generator started',
    });
    const good = {
      enabled: true,
      channel_ids: [],
      group_ids: [],
      title_template: 'T',
      body_template: '{{details}}',
    };
    const unknown = await api.put('/api/system-notifications/generator_exploded', good);
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toMatch(/^event: /);
    const badVar = await api.put('/api/system-notifications/generator_started', {
      ...good,
      body_template: '{{run_id}} {{bogus}}',
    });
    expect(badVar.status).toBe(422);
    expect(badVar.body.detail).toBe('body_template: unknown variable {{bogus}}');
    const badIds = await api.put('/api/system-notifications/generator_started', {
      ...good,
      channel_ids: [9999],
      group_ids: [8888],
    });
    expect(badIds.body.detail).toBe('channel_ids: unknown channel 9999; group_ids: unknown group 8888');
    const missing = await api.put('/api/system-notifications/generator_started', { enabled: true });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toMatch(/channel_ids/);
    // The refused writes changed nothing.
    expect((await api.get('/api/system-notifications/generator_started')).body).toEqual(all.body[0]);
    const ok = await api.put('/api/system-notifications/lockout_cleared', good);
    expect(ok.body).toMatchObject({
      event: 'lockout_cleared',
      configured: true,
      body_template: '{{details}}',
    });
  });

  it('sends to channels now and records each attempt in the history', async () => {
    const ch = (
      await api.post('/api/notifications/channels', {
        name: 'hook2',
        channel_type: 'webhook',
        config: { url: `${peer.url}/manual` },
      })
    ).body;
    expect(
      (await api.post('/api/notifications/send', { title: 't', body: 'b', channel_ids: [424242] })).status,
    ).toBe(422);
    const sent = await api.post('/api/notifications/send', {
      title: 'Fuel low',
      body: 'Refill the tank',
      channel_ids: [ch.id],
    });
    expect(sent.status).toBe(200);
    expect(sent.body.results).toEqual([{ channel_id: ch.id, status: 'sent', error: null }]);
    expect(peer.requests.at(-1)!.json).toEqual({
      title: 'Fuel low',
      body: 'Refill the tank',
      event: 'manual',
    });
    const history = await api.get('/api/notifications/history?limit=1');
    expect(history.body).toEqual([
      expect.objectContaining({
        source: 'manual',
        channel_id: ch.id,
        channel_name: 'hook2',
        status: 'sent',
        attempt: 1,
        title: 'Fuel low',
        error: null,
      }),
    ]);
    expect((await api.get('/api/notifications/history?limit=0')).status).toBe(422);
  });
});
