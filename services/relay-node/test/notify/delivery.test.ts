import { Writable } from 'node:stream';
import { startHttpPeer, startSmtpPeer } from '@outpost/notification-senders/testing';
import { ConfigError, createLogger } from '@outpost/runtime';
import { ManualClock } from '@outpost/runtime/clock';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { startTestNode } from '../service-helpers.js';
import { leased } from '../lease-fields.js';

/**
 * The relay node's notifications end to end: NOTIFIER_URLS / the settings, through @outpost/notification-senders,
 * to a real HTTP receiver and a real SMTP server (aiosmtpd) on 127.0.0.1.
 */

const HB = { heartbeat_interval: 10, armed: true, relay_on: true };

function logCapture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ service: 'relaynode', level: 'info', destination: stream }) };
}

describe('relay node notifications through @outpost/notification-senders', () => {
  it('Failsafe Triggered and Heartbeat Restored reach a json:// receiver and an SMTP mailbox', async () => {
    const rx = await startHttpPeer();
    const smtp = await startSmtpPeer();
    const clock = new ManualClock(Date.now());
    const n = await startTestNode({
      clock,
      config: {
        hardwareSafety: false,
        notifierUrls: [
          `json://me:hook-pass@127.0.0.1:${rx.port}/alerts?+X-Site=shed`,
          `mailto://127.0.0.1:${smtp.port}?from=node@site.test&to=ops@site.test,pager@site.test`,
        ],
      },
    });
    try {
      await n.api('POST', '/api/heartbeat', leased(HB, clock.now()));
      clock.advance(30_000);
      expect(n.io.level('GPIO16')).toBe(0);
      const [failsafe] = await rx.waitFor(1);
      expect(failsafe).toMatchObject({ method: 'POST', path: '/alerts' });
      expect(failsafe!.headers['x-site']).toBe('shed');
      expect(failsafe!.headers.authorization).toBe(`Basic ${Buffer.from('me:hook-pass').toString('base64')}`);
      expect(failsafe!.json).toEqual({
        version: '1.0',
        title: 'Failsafe Triggered',
        message: 'Relay node main: no heartbeat from the controller for 30 s; relay forced OFF.',
        type: 'failure',
      });
      const [mail] = await smtp.waitFor(1);
      expect(mail).toMatchObject({
        mail_from: 'node@site.test',
        rcpt_tos: ['ops@site.test', 'pager@site.test'],
        subject: 'Failsafe Triggered',
      });
      expect(mail!.body).toContain('relay forced OFF');

      await n.api('POST', '/api/heartbeat', leased(HB, clock.now()));
      const requests = await rx.waitFor(2);
      expect(requests[1]!.json).toMatchObject({ title: 'Heartbeat Restored', type: 'success' });
      const mails = await smtp.waitFor(2);
      expect(mails[1]).toMatchObject({ subject: 'Heartbeat Restored' });
      expect(mails[1]!.body).toContain('failsafe cleared');
    } finally {
      await n.stop();
      await rx.close();
      await smtp.close();
    }
  });

  it('cooldowns suppress a repeated Failsafe Triggered until they have passed', async () => {
    const rx = await startHttpPeer();
    const clock = new ManualClock(Date.now());
    const n = await startTestNode({
      clock,
      config: { hardwareSafety: false, notifierUrls: [`json://127.0.0.1:${rx.port}/alerts`] },
    });
    const titles = () => rx.requests.map((r) => (r.json as { title: string }).title);
    try {
      await n.api('POST', '/api/relaynode/notifications/settings', {
        failsafe_cooldown_minutes: 10,
        restored_cooldown_minutes: 0,
      });
      await n.api('POST', '/api/heartbeat', leased(HB, clock.now()));
      clock.advance(30_000); // failsafe 1: sent
      await rx.waitFor(1);
      await n.api('POST', '/api/heartbeat', leased(HB, clock.now())); // restored: sent (no cooldown)
      await rx.waitFor(2);
      clock.advance(30_000); // failsafe 2, 30 s after the first: suppressed
      expect(n.io.level('GPIO16')).toBe(0);
      expect((await n.api('GET', '/api/failsafe')).body).toMatchObject({ failsafe_triggered: true });
      // A later notification as a barrier: anything sent before it has arrived by then.
      await n.api('POST', '/api/relaynode/notifications/test');
      await rx.waitFor(3);
      expect(titles()).toEqual(['Failsafe Triggered', 'Heartbeat Restored', 'Test notification']);

      await n.api('POST', '/api/heartbeat', leased(HB, clock.now())); // restored again
      await rx.waitFor(4);
      clock.advance(9 * 60_000); // failsafe 3 at +90 s: still suppressed
      await n.api('POST', '/api/heartbeat', leased(HB, clock.now()));
      await rx.waitFor(5);
      clock.advance(30_000); // failsafe 4 at +10 min: the cooldown has passed
      await rx.waitFor(6);
      expect(titles().slice(3)).toEqual(['Heartbeat Restored', 'Heartbeat Restored', 'Failsafe Triggered']);
    } finally {
      await n.stop();
      await rx.close();
    }
  });

  it('POST /api/relaynode/notifications/test reports every URL, redacted, and reaches every peer', async () => {
    const rx = await startHttpPeer((req) =>
      req.path === '/broken' ? { status: 500, body: { error: 'receiver down' } } : undefined,
    );
    const smtp = await startSmtpPeer();
    const n = await startTestNode({ baseUrls: { telegram: rx.url } });
    try {
      const none = await n.api('POST', '/api/relaynode/notifications/test');
      expect(none).toEqual({ status: 409, body: { detail: 'No notifier URLs configured' } });

      const urls = [
        `json://me:hook-pass@127.0.0.1:${rx.port}/ok`,
        `mailto://127.0.0.1:${smtp.port}?from=node@site.test&to=ops@site.test`,
        `json://127.0.0.1:${rx.port}/broken`,
        'tgram://123456:BOT-TOKEN-SECRET/1001',
      ];
      expect((await n.api('POST', '/api/relaynode/notifications', { notifier_urls: urls })).status).toBe(200);
      const res = await n.api('POST', '/api/relaynode/notifications/test');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        results: [
          { url: `json://127.0.0.1:${rx.port}/****`, ok: true },
          { url: `mailto://127.0.0.1:${smtp.port}/****`, ok: true },
          { url: `json://127.0.0.1:${rx.port}/****`, ok: false, error: 'json: HTTP 500' },
          { url: 'tgram://****', ok: true },
        ],
      });
      const text = JSON.stringify(res.body);
      expect(text).not.toContain('hook-pass');
      expect(text).not.toContain('BOT-TOKEN-SECRET');

      const byPath = (p: string) => rx.requests.find((r) => r.path === p);
      expect(byPath('/ok')?.json).toMatchObject({ title: 'Test notification', type: 'info' });
      // The telegram base URL override reached the relay node's sender.
      expect(byPath('/bot123456:BOT-TOKEN-SECRET/sendMessage')?.json).toMatchObject({
        chat_id: '1001',
        text: 'Test notification\n\nRelay node main: notifications work.',
      });
      const [mail] = await smtp.waitFor(1);
      expect(mail).toMatchObject({ subject: 'Test notification', rcpt_tos: ['ops@site.test'] });
    } finally {
      await n.stop();
      await rx.close();
      await smtp.close();
    }
  });

  it('a URL that cannot be delivered to is refused with 422 naming its index, and nothing is stored', async () => {
    const n = await startTestNode();
    try {
      const bad = await n.api('POST', '/api/relaynode/notifications', {
        notifier_urls: ['json://127.0.0.1/ok', 'tgram://not-a-token/1'],
      });
      expect(bad.status).toBe(422);
      expect(bad.body.detail).toBe('notifier_urls.1: tgram: expected tgram://<bot_token>/<chat_id>');
      expect((await n.api('GET', '/api/relaynode/notifications')).body).toMatchObject({
        notifier_urls: [],
        source: 'environment',
      });
    } finally {
      await n.stop();
    }
  });

  it('secrets in notifier URLs never reach the log, delivered or failed', async () => {
    const rx = await startHttpPeer((req) =>
      req.path.startsWith('/bot')
        ? { status: 401, body: { ok: false, description: 'Unauthorized' } }
        : undefined,
    );
    const clock = new ManualClock(Date.now());
    const cap = logCapture();
    const n = await startTestNode({
      clock,
      logger: cap.logger,
      baseUrls: { telegram: rx.url },
      config: {
        hardwareSafety: false,
        notifierUrls: [`json://me:hook-pass@127.0.0.1:${rx.port}/x`, 'tgram://123456:BOT-TOKEN-SECRET/1001'],
      },
    });
    try {
      await n.api('POST', '/api/heartbeat', leased(HB, clock.now()));
      clock.advance(30_000);
      await rx.waitFor(2);
      await n.api('GET', '/api/relaynode/notifications');
      await new Promise((r) => setImmediate(r));
      const log = cap.lines.join('\n');
      expect(log).toContain('"msg":"notification delivered"');
      expect(log).toContain(`"url":"json://127.0.0.1:${rx.port}/****"`);
      expect(log).toMatch(
        /"url":"tgram:\/\/\*\*\*\*","error":"telegram: HTTP 401 Unauthorized".*"msg":"notification failed"/,
      );
      expect(log).not.toContain('hook-pass');
      expect(log).not.toContain('BOT-TOKEN-SECRET');
    } finally {
      await n.stop();
      await rx.close();
    }
  });
});

describe('NOTIFIER_URLS at start', () => {
  const base = { RELAYNODE_API_SECRET: 'k', MOCK_HAT_MODE: 'true' };

  it('accepts every supported scheme, comma-separated', () => {
    const urls = [
      'json://127.0.0.1:9/hook',
      'tgram://123456:ABC/1001',
      'mailtos://bob:pw@mail.example.com?to=ops@example.com',
      'ntfy://generator',
    ];
    expect(readConfig({ ...base, NOTIFIER_URLS: urls.join(' , ') }).notifierUrls).toEqual(urls);
  });

  it('a bad URL is a ConfigError naming NOTIFIER_URLS, without the secret', () => {
    let err: unknown;
    try {
      readConfig({ ...base, NOTIFIER_URLS: 'json://127.0.0.1/ok,gopher://user:very-secret@host/x' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe('NOTIFIER_URLS');
    expect((err as Error).message).toMatch(
      /^Invalid environment variable NOTIFIER_URLS: notifier URL 2 \(gopher:\/\/\*\*\*\*\): unsupported scheme gopher:\/\//,
    );
    expect((err as Error).message).not.toContain('very-secret');
  });
});
