/**
 * A masked secret (an email password, webhook headers) is kept on update only while the channel keeps
 * its destination: moved to another host or URL, the stored secret is dropped unless it is sent again,
 * so pressing "test" never hands it to the new host. Real peers on 127.0.0.1: HTTP receivers and
 * aiosmtpd (which accepts only the password `secret`).
 */
import {
  type HttpPeer,
  type SmtpPeer,
  startHttpPeer,
  startSmtpPeer,
} from '@outpost/notification-senders/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningNotifier } from '../../src/app.js';
import { client, embeddedBroker, launchNotifier } from '../helpers/notifier.js';

let broker: Awaited<ReturnType<typeof embeddedBroker>>;
let notifier: RunningNotifier;
let api: Awaited<ReturnType<typeof client>>;
let hookA: HttpPeer;
let hookB: HttpPeer;
let smtpA: SmtpPeer;
let smtpB: SmtpPeer;

beforeAll(async () => {
  broker = await embeddedBroker();
  [hookA, hookB, smtpA, smtpB] = await Promise.all([
    startHttpPeer(),
    startHttpPeer(),
    startSmtpPeer(),
    startSmtpPeer(),
  ]);
  notifier = await launchNotifier({ mqttUrl: broker.url });
  api = await client(notifier.url);
});
afterAll(async () => {
  await notifier?.close();
  await Promise.all([hookA?.close(), hookB?.close(), smtpA?.close(), smtpB?.close()]);
  await broker?.close();
});

/** What a client sends back from a GET: the channel's own fields. */
const editable = (c: {
  name: string;
  channel_type: string;
  enabled: boolean;
  config: Record<string, unknown>;
}) => ({
  name: c.name,
  channel_type: c.channel_type,
  enabled: c.enabled,
  config: c.config,
});

describe('stored secrets and a change of destination', () => {
  it('webhook headers masked after a URL change are dropped, not sent to the new URL', async () => {
    const created = await api.post('/api/notifications/channels', {
      name: 'hook',
      channel_type: 'webhook',
      config: { url: `${hookA.url}/in`, headers: { Authorization: 'Bearer OLD-HEADER-SECRET' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const shown = editable((await api.get(`/api/notifications/channels/${id}`)).body);

    const moved = await api.put(`/api/notifications/channels/${id}`, {
      ...shown,
      config: { ...shown.config, url: `${hookB.url}/in` },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.config.headers).toEqual({});
    await api.post(`/api/notifications/channels/${id}/test`);
    await hookB.waitFor(1);
    expect(JSON.stringify(hookB.requests)).not.toContain('OLD-HEADER-SECRET');
    expect(hookB.requests.at(-1)?.headers.authorization).toBeUndefined();

    // Sent again with the new URL, it is kept; and a later edit that keeps the URL keeps it too.
    await api.put(`/api/notifications/channels/${id}`, {
      ...shown,
      config: { ...shown.config, url: `${hookB.url}/in`, headers: { Authorization: 'Bearer NEW' } },
    });
    const again = editable((await api.get(`/api/notifications/channels/${id}`)).body);
    await api.put(`/api/notifications/channels/${id}`, { ...again, name: 'hook renamed' });
    await api.post(`/api/notifications/channels/${id}/test`);
    await hookB.waitFor(2);
    expect(hookB.requests.at(-1)?.headers.authorization).toBe('Bearer NEW');
  });

  it('an email password masked after a host or port change is dropped, so the new server never gets it', async () => {
    const config = {
      smtp_host: '127.0.0.1',
      smtp_port: smtpA.port,
      username: 'alerts',
      password: 'secret',
      from_email: 'gen@site.test',
      to_emails: ['ops@site.test'],
      require_tls: false,
    };
    const created = await api.post('/api/notifications/channels', {
      name: 'mail',
      channel_type: 'email',
      config,
    });
    const id = created.body.id as number;
    const shown = editable((await api.get(`/api/notifications/channels/${id}`)).body);
    expect(shown.config.password).toBe('****');

    // Same server, other recipients: the masked password is kept and still logs in.
    await api.put(`/api/notifications/channels/${id}`, {
      ...shown,
      config: { ...shown.config, to_emails: ['crew@site.test'] },
    });
    const same = await api.post(`/api/notifications/channels/${id}/test`);
    expect(same.body.results[0].status).toBe('sent');
    expect((await smtpA.waitFor(1))[0]).toMatchObject({ login: 'alerts', rcpt_tos: ['crew@site.test'] });

    // Another port: the masked password does not follow.
    const moved = await api.put(`/api/notifications/channels/${id}`, {
      ...shown,
      config: { ...shown.config, smtp_port: smtpB.port },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.config.password).toBe('');
    const test = await api.post(`/api/notifications/channels/${id}/test`);
    expect(test.body.results[0].status).not.toBe('sent');
    await new Promise((r) => setTimeout(r, 200));
    expect(smtpB.messages().filter((m) => m.login === 'alerts')).toEqual([]);
  });
});
