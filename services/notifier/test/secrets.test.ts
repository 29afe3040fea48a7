import { describe, expect, it } from 'vitest';
import { keepSecrets, maskConfig } from '../src/domain/secrets.js';

describe('write-only secrets', () => {
  it('masks every secret field of every type', () => {
    expect(maskConfig('telegram', { bot_token: '123456:ABCDEFGHIJKL', chat_id: '42' })).toEqual({
      bot_token: '****IJKL',
      chat_id: '42',
    });
    expect(maskConfig('slack', { webhook_url: 'https://hooks.slack.com/services/T/B/C' })).toEqual({
      webhook_url: 'https://hooks.slack.com/****',
    });
    expect(maskConfig('email', { smtp_host: 'h', password: 'short' })).toEqual({
      smtp_host: 'h',
      password: '****',
    });
    expect(maskConfig('pushover', { user_key: 'uuuuuuuuuuuuuuu1', api_token: 'aaaaaaaaaaaaaaa2' })).toEqual({
      user_key: '****uuu1',
      api_token: '****aaa2',
    });
    expect(maskConfig('apprise', { urls: ['tgram://1:tok/5'] })).toEqual({ urls: ['tgram://****'] });
    expect(maskConfig('webhook', { url: 'http://x/y', headers: { Authorization: 'Bearer s' } })).toEqual({
      url: 'http://x/y',
      headers: { Authorization: '****' },
    });
  });

  it('keeps stored secrets when an update omits them or echoes the mask, replaces them otherwise', () => {
    const stored = { bot_token: '123456:ABCDEFGHIJKL', chat_id: '1' };
    expect(keepSecrets('telegram', { chat_id: '2' }, stored)).toEqual({
      bot_token: stored.bot_token,
      chat_id: '2',
    });
    expect(keepSecrets('telegram', { bot_token: '****IJKL', chat_id: '2' }, stored)).toMatchObject({
      bot_token: stored.bot_token,
    });
    expect(keepSecrets('telegram', { bot_token: '9:new', chat_id: '2' }, stored)).toMatchObject({
      bot_token: '9:new',
    });
  });
});

describe('write-only secrets in lists and maps', () => {
  it('keeps masked headers and URLs entry by entry while accepting new ones', () => {
    const stored = { url: 'http://x/y', headers: { 'X-Auth': 'Bearer s3' }, urls: ['tgram://1:tok/5'] };
    expect(
      keepSecrets('webhook', { url: 'http://x/y', headers: { 'X-Auth': '****', 'X-New': 'v' } }, stored),
    ).toEqual({ url: 'http://x/y', headers: { 'X-Auth': 'Bearer s3', 'X-New': 'v' } });
    // Another URL: the masked header is dropped, the one sent again is kept.
    expect(
      keepSecrets('webhook', { url: 'http://x/z', headers: { 'X-Auth': '****', 'X-New': 'v' } }, stored),
    ).toEqual({ url: 'http://x/z', headers: { 'X-New': 'v' } });
    expect(keepSecrets('apprise', { urls: ['tgram://****', 'json://h/x'] }, stored)).toEqual({
      urls: ['tgram://1:tok/5', 'json://h/x'],
    });
  });
});
