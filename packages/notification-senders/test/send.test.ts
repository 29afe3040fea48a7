import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  channelTargets,
  parseNotifierUrl,
  type SendOptions,
  send,
  sendAll,
  type Target,
} from '../src/index.js';
import { freePort, type HttpPeer, startHttpPeer } from '../src/testing.js';

let peer: HttpPeer;
let opts: SendOptions;
const msg = { title: 'Generator started', body: 'Run 7 began at 12:00' };

beforeAll(async () => {
  peer = await startHttpPeer();
  opts = {
    timeoutMs: 2000,
    baseUrls: { telegram: peer.url, discord: peer.url, slack: peer.url, pushover: peer.url, ntfy: peer.url },
  };
});
afterAll(() => peer.close());

function fromUrl(url: string): Target {
  const r = parseNotifierUrl(url);
  if (!r.ok) throw new Error(r.error);
  return r.target;
}

async function one(target: Target) {
  const before = peer.requests.length;
  const result = await send(target, msg, opts);
  expect(result).toEqual({ ok: true });
  expect(peer.requests.length).toBe(before + 1);
  return peer.requests[before]!;
}

describe('provider request formats', () => {
  it('telegram: POST /bot<token>/sendMessage with chat_id and text', async () => {
    const req = await one(fromUrl('tgram://123456:ABC-def/1001'));
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/bot123456:ABC-def/sendMessage');
    expect(req.headers['content-type']).toMatch(/^application\/json/);
    expect(req.json).toMatchObject({ chat_id: '1001', text: 'Generator started\n\nRun 7 began at 12:00' });
  });

  it('discord: POST /api/webhooks/<id>/<token> with content', async () => {
    const req = await one(fromUrl('discord://987654321/tokenXYZ'));
    expect(req.path).toBe('/api/webhooks/987654321/tokenXYZ');
    expect(req.json).toMatchObject({
      content: '**Generator started**\nRun 7 began at 12:00',
      allowed_mentions: { parse: [] },
    });
  });

  it('slack: POST /services/A/B/C with text', async () => {
    const req = await one(fromUrl('slack://TAAA/BBBB/CCCCCCCC'));
    expect(req.path).toBe('/services/TAAA/BBBB/CCCCCCCC');
    expect(req.json).toEqual({ text: '*Generator started*\nRun 7 began at 12:00' });
  });

  it('pushover: form POST /1/messages.json with token, user, title, message', async () => {
    const req = await one(fromUrl('pover://userkey1@apitoken2'));
    expect(req.path).toBe('/1/messages.json');
    expect(req.form).toEqual({ token: 'apitoken2', user: 'userkey1', message: msg.body, title: msg.title });
  });

  it('ntfy: JSON publish to the server root with topic, title, message and auth', async () => {
    const req = await one(fromUrl(`ntfy://u:p@127.0.0.1:${peer.port}/gen-alerts`));
    expect(req.path).toBe('/');
    expect(req.json).toEqual({ topic: 'gen-alerts', title: msg.title, message: msg.body });
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    const cloud = await one(fromUrl('ntfy://public-topic'));
    expect(cloud.json).toMatchObject({ topic: 'public-topic' });
  });

  it('json: Apprise document with version, title, message, type, custom headers', async () => {
    const req = await one(fromUrl(`json://127.0.0.1:${peer.port}/notify?+X-Key=k1&:site=shed`));
    expect(req.path).toBe('/notify');
    expect(req.headers['x-key']).toBe('k1');
    expect(req.json).toEqual({
      version: '1.0',
      title: msg.title,
      message: msg.body,
      type: 'info',
      site: 'shed',
    });
  });

  it('typed channel configs: telegram, slack, discord, pushover, webhook', async () => {
    const t = (type: Parameters<typeof channelTargets>[0], config: never) => {
      const r = channelTargets(type, config);
      if (!r.ok) throw new Error(r.error);
      return r.targets[0]!;
    };
    const tg = await one(t('telegram', { bot_token: '42:xyz', chat_id: '-5' } as never));
    expect(tg.path).toBe('/bot42:xyz/sendMessage');
    expect(tg.json).toMatchObject({ chat_id: '-5' });
    const sl = await one(t('slack', { webhook_url: `${peer.url}/services/T/B/C` } as never));
    expect(sl.json).toMatchObject({ text: expect.stringContaining('Generator started') });
    const dc = await one(t('discord', { webhook_url: 'https://discord.com/api/webhooks/1/abc' } as never));
    expect(dc.path).toBe('/api/webhooks/1/abc');
    const po = await one(t('pushover', { user_key: 'U1', api_token: 'A1' } as never));
    expect(po.form).toMatchObject({ user: 'U1', token: 'A1' });
    const wh = await one(
      t('webhook', {
        url: `${peer.url}/hook`,
        method: 'PUT',
        headers: { Authorization: 'Bearer s3' },
      } as never),
    );
    expect(wh.method).toBe('PUT');
    expect(wh.headers.authorization).toBe('Bearer s3');
    expect(wh.json).toEqual({ title: msg.title, body: msg.body });
  });
});

describe('failures', () => {
  it('5xx is retryable, 4xx is not, and the provider reason is kept without the token', async () => {
    peer.respond = (r) =>
      r.path.includes('sendMessage')
        ? { status: 401, body: { ok: false, description: 'Unauthorized' } }
        : { status: 503, body: 'busy' };
    try {
      const tg = await send(fromUrl('tgram://999:SECRETTOKEN/1'), msg, opts);
      expect(tg).toEqual({ ok: false, error: 'telegram: HTTP 401 Unauthorized', retryable: false });
      const sl = await send(fromUrl('slack://T/B/C'), msg, opts);
      expect(sl).toEqual({ ok: false, error: 'slack: HTTP 503 busy', retryable: true });
    } finally {
      peer.respond = () => undefined;
    }
  });

  it('a Telegram or Pushover reply that does not confirm is a failure', async () => {
    peer.respond = () => ({ status: 200, body: { status: 0, errors: ['user identifier is invalid'] } });
    try {
      const po = await send(fromUrl('pover://u@t'), msg, opts);
      expect(po).toMatchObject({ ok: false, error: 'pushover: reply without status: 1' });
    } finally {
      peer.respond = () => undefined;
    }
  });

  it('a refused connection is retryable and names the code, not the URL', async () => {
    const port = await freePort();
    const r = await send(fromUrl(`json://127.0.0.1:${port}/x?+X-Secret=zzz`), msg, opts);
    expect(r).toEqual({ ok: false, error: 'json: ECONNREFUSED', retryable: true });
  });

  it('a peer that never answers times out', async () => {
    peer.respond = () => undefined;
    const { createServer } = await import('node:net');
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const r = await send(fromUrl(`json://127.0.0.1:${port}/`), msg, { ...opts, timeoutMs: 200 });
      expect(r).toEqual({ ok: false, error: 'json: no reply within 200 ms', retryable: true });
    } finally {
      silent.close();
    }
  });

  it('sendAll tries every target and reports each failure by position', async () => {
    const port = await freePort();
    const before = peer.requests.length;
    const r = await sendAll([fromUrl(`json://127.0.0.1:${port}/`), fromUrl('slack://T/B/C')], msg, opts);
    expect(r).toEqual({ ok: false, error: '#1 json: ECONNREFUSED', retryable: true });
    expect(peer.requests.length).toBe(before + 1);
  });
});
