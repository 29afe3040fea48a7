import { describe, expect, it } from 'vitest';
import { parseNotifierUrl, redactNotifierUrl } from '../src/index.js';

const target = (url: string) => {
  const r = parseNotifierUrl(url);
  if (!r.ok) throw new Error(r.error);
  return r.target;
};

describe('parseNotifierUrl', () => {
  it('reads json:// and jsons:// with port, path, basic auth, headers and extra fields', () => {
    expect(target('json://bob:pw@127.0.0.1:8080/hooks/gen?+X-Token=abc&:source=outpost&method=put')).toEqual({
      kind: 'json',
      url: 'http://127.0.0.1:8080/hooks/gen',
      method: 'PUT',
      headers: { 'X-Token': 'abc' },
      username: 'bob',
      password: 'pw',
      extra: { source: 'outpost' },
    });
    expect(target('jsons://example.com')).toMatchObject({ url: 'https://example.com/', method: 'POST' });
  });

  it('reads tgram:// with a bot token containing a colon and several chats', () => {
    expect(target('tgram://123456:ABC-def_9/1001/-100200/@news')).toEqual({
      kind: 'telegram',
      bot_token: '123456:ABC-def_9',
      chat_ids: ['1001', '-100200', '@news'],
    });
  });

  it('reads discord:// and slack:// into the providers’ webhook URLs', () => {
    expect(target('discord://genbot@1234567890/tok_EN-x')).toEqual({
      kind: 'discord',
      webhook_url: 'https://discord.com/api/webhooks/1234567890/tok_EN-x',
      username: 'genbot',
    });
    expect(target('slack://T1ABC/B2DEF/abcdefghijklmnopqrstuvwx/#alerts')).toEqual({
      kind: 'slack',
      webhook_url: 'https://hooks.slack.com/services/T1ABC/B2DEF/abcdefghijklmnopqrstuvwx',
      channel: '#alerts',
    });
  });

  it('reads pover://user@token with an optional device', () => {
    expect(target('pover://ukey123@atoken456/phone')).toEqual({
      kind: 'pushover',
      user_key: 'ukey123',
      api_token: 'atoken456',
      devices: ['phone'],
    });
  });

  it('reads ntfy:// public topics, self-hosted servers and credentials', () => {
    expect(target('ntfy://generator-alerts')).toMatchObject({
      server: 'https://ntfy.sh',
      topics: ['generator-alerts'],
    });
    expect(target('ntfy://u:p@127.0.0.1:8085/a/b')).toMatchObject({
      server: 'http://127.0.0.1:8085',
      topics: ['a', 'b'],
      username: 'u',
      password: 'p',
    });
    expect(target('ntfys://host.example/t?token=tk_abc')).toMatchObject({
      server: 'https://host.example',
      token: 'tk_abc',
    });
  });

  it('reads mailto:// and mailtos:// with smtp, from, to and port', () => {
    expect(target('mailto://127.0.0.1:2525?from=gen@site.test&to=a@x.test,b@x.test')).toEqual({
      kind: 'email',
      host: '127.0.0.1',
      port: 2525,
      secure: false,
      requireTls: false,
      username: undefined,
      password: undefined,
      from: 'gen@site.test',
      to: ['a@x.test', 'b@x.test'],
    });
    expect(target('mailtos://me:pw@example.com?smtp=smtp.example.com')).toMatchObject({
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      requireTls: true,
      username: 'me',
      from: 'me@example.com',
      to: ['me@example.com'],
    });
    expect(target('mailtos://me:pw@example.com:465/ops@example.com')).toMatchObject({
      secure: true,
      to: ['ops@example.com'],
    });
  });

  it('refuses malformed URLs with a reason that does not repeat the secret', () => {
    const cases = [
      'ftp://x',
      'not a url',
      'tgram://notatoken/123',
      'tgram://123:abc',
      'discord://abc',
      'slack://a/b',
      'pover://tokenonly',
      'json://',
      'json://host:99999/x',
      'mailto://example.com',
      'ntfy://bad topic!',
    ];
    for (const url of cases) {
      const r = parseNotifierUrl(url);
      expect(r.ok, url).toBe(false);
      if (!r.ok) expect(r.error).not.toContain('abc');
    }
  });

  it('redacts secrets for display', () => {
    expect(redactNotifierUrl('tgram://123456:SECRET/1001')).toBe('tgram://****');
    expect(redactNotifierUrl('json://user:SECRET@hooks.local:8080/x')).toBe('json://hooks.local:8080/****');
    expect(redactNotifierUrl('pover://u@SECRET')).toBe('pover://****');
  });
});
