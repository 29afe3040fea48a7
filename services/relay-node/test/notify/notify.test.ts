import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyAll, parseNotifierUrl, redactNotifierUrl } from '../../src/notify/index.js';
import { startReceiver, startSmtp } from '../peers.js';

const msg = { title: 'Failsafe Triggered', body: 'relay forced OFF', type: 'failure' as const };

describe('notifier URL parsing', () => {
  it('reads every supported scheme', () => {
    expect(parseNotifierUrl('jsons://user:p%40ss@example.org:8443/hook/a?+X-Token=abc&method=put')).toEqual({
      kind: 'json',
      url: 'https://example.org:8443/hook/a',
      method: 'PUT',
      headers: { 'X-Token': 'abc' },
      auth: { user: 'user', pass: 'p@ss' },
    });
    expect(parseNotifierUrl('tgram://123456789:AAH-abc_def/-100123/42')).toEqual({
      kind: 'telegram',
      botToken: '123456789:AAH-abc_def',
      chatIds: ['-100123', '42'],
    });
    expect(parseNotifierUrl('discord://bot@111/tok')).toMatchObject({
      webhookId: '111',
      webhookToken: 'tok',
      username: 'bot',
    });
    expect(parseNotifierUrl('slack://T1/B2/C3/#alerts')).toMatchObject({
      tokens: ['T1', 'B2', 'C3'],
      channel: '#alerts',
    });
    expect(parseNotifierUrl('pover://ukey@atoken/phone')).toMatchObject({
      userKey: 'ukey',
      token: 'atoken',
      devices: ['phone'],
    });
    expect(parseNotifierUrl('ntfy://generator')).toMatchObject({
      server: null,
      topic: 'generator',
      secure: true,
    });
    expect(parseNotifierUrl('ntfy://ntfy.local:8080/gen')).toMatchObject({
      server: 'ntfy.local:8080',
      secure: false,
      topic: 'gen',
    });
    expect(parseNotifierUrl('mailtos://bob:pw@mail.example.com?to=a@x.org,b@x.org')).toMatchObject({
      smtpHost: 'mail.example.com',
      port: 587,
      security: 'starttls',
      from: 'bob@mail.example.com',
      to: ['a@x.org', 'b@x.org'],
      auth: { user: 'bob', pass: 'pw' },
    });
  });

  it('rejects what it cannot deliver, with a reason', () => {
    expect(() => parseNotifierUrl('gopher://x')).toThrow(/unsupported scheme/);
    expect(() => parseNotifierUrl('tgram://notatoken/1')).toThrow(/bot_token/);
    expect(() => parseNotifierUrl('pover://onlytoken')).toThrow(/user key/);
  });

  it('redacts secrets for logs', () => {
    expect(redactNotifierUrl('tgram://123:abc/1')).toBe('tgram://***');
    expect(redactNotifierUrl('json://u:p@host/path')).toBe('json://***@host/path');
  });
});

describe('delivery to local peers', () => {
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
  });

  it('json:// posts the Apprise JSON body with headers and basic auth', async () => {
    rx.requests.length = 0;
    const res = await notifyAll([`json://me:secret@127.0.0.1:${rx.port}/hook?+X-Site=shed`], msg);
    expect(res).toEqual([{ url: `json://***@127.0.0.1:${rx.port}/hook?+X-Site=***`, ok: true }]);
    const r = rx.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/hook');
    expect(r.headers['x-site']).toBe('shed');
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('me:secret').toString('base64')}`);
    expect(JSON.parse(r.body)).toEqual({
      version: '1.0',
      title: 'Failsafe Triggered',
      message: 'relay forced OFF',
      type: 'failure',
    });
  });

  it('hosted services go to their (overridden) API endpoints', async () => {
    rx.requests.length = 0;
    const endpoints = { telegram: rx.url, discord: rx.url, slack: rx.url, pushover: rx.url, ntfy: rx.url };
    const res = await notifyAll(
      [
        'tgram://123:ABC/555',
        'discord://999/tok',
        'slack://T1/B2/C3/#gen',
        'pover://ukey@atok',
        'ntfy://genset',
      ],
      msg,
      { endpoints },
    );
    expect(res.every((r) => r.ok)).toBe(true);
    const by = (p: string) => rx.requests.find((r) => r.url.startsWith(p))!;
    expect(JSON.parse(by('/bot123:ABC/sendMessage').body)).toEqual({
      chat_id: '555',
      text: 'Failsafe Triggered\r\nrelay forced OFF',
    });
    expect(JSON.parse(by('/api/webhooks/999/tok').body).content).toContain('Failsafe Triggered');
    expect(JSON.parse(by('/services/T1/B2/C3').body)).toMatchObject({ channel: '#gen' });
    const po = new URLSearchParams(by('/1/messages.json').body);
    expect([po.get('token'), po.get('user'), po.get('priority')]).toEqual(['atok', 'ukey', '1']);
    const nt = by('/genset');
    expect(nt.body).toBe('relay forced OFF');
    expect(nt.headers.title).toBe('Failsafe Triggered');
  });

  it('a self-hosted ntfy server is reached directly', async () => {
    rx.requests.length = 0;
    const [r] = await notifyAll([`ntfy://127.0.0.1:${rx.port}/site1`], {
      title: 'Heartbeat Restored',
      body: 'ok',
    });
    expect(r?.ok).toBe(true);
    expect(rx.requests[0]?.url).toBe('/site1');
  });

  it('reports a failing receiver without throwing', async () => {
    rx.state.status = 500;
    const [r] = await notifyAll([`json://127.0.0.1:${rx.port}/x`], msg);
    rx.state.status = 200;
    expect(r).toMatchObject({ ok: false, error: expect.stringContaining('HTTP 500') });
    const [bad] = await notifyAll(['nope://x'], msg);
    expect(bad).toMatchObject({ ok: false, error: expect.stringContaining('unsupported') });
  });

  it('mailto:// is delivered over SMTP (aiosmtpd)', async () => {
    const smtp = await startSmtp();
    try {
      const [r] = await notifyAll(
        [`mailto://127.0.0.1:${smtp.port}?from=node@site.test&to=ops@site.test,pager@site.test`],
        msg,
      );
      expect(r).toMatchObject({ ok: true });
      const [m] = smtp.messages();
      expect(m?.mail_from).toBe('node@site.test');
      expect(m?.rcpt_tos).toEqual(['ops@site.test', 'pager@site.test']);
      expect(m?.data).toContain('Subject: Failsafe Triggered');
      expect(m?.data).toContain('relay forced OFF');
    } finally {
      await smtp.close();
    }
  });
});
