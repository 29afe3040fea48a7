import { serveApp } from '@outpost/runtime';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { buildGateway } from '../../src/gateway/gateway.js';
import { clientAddress, inRanges, parseRanges } from '../../src/gateway/network.js';
import { ADMIN, testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import pino from 'pino';

let tdb: TestDatabase;
let database: Database;
let t: TestApp;

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
}, 60_000);
afterAll(async () => {
  await database.close();
  await tdb.cleanup();
});
afterEach(async () => {
  await t?.close();
});

describe('authentication', () => {
  it('login returns access_token, token_type bearer and expires_in; /api/auth/me names the user', async () => {
    t = await testApp(database);
    const res = await t.request('POST', '/api/auth/login', ADMIN, { authorization: '' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 7 * 86400,
    });
    t.setToken(res.body.access_token);
    expect((await t.request('GET', '/api/auth/me')).body).toMatchObject({ username: 'admin' });
  });

  it('wrong password or unknown user: 401 with a detail', async () => {
    t = await testApp(database);
    for (const body of [
      { ...ADMIN, password: 'nope' },
      { username: 'ghost', password: 'whatever' },
    ]) {
      const res = await t.request('POST', '/api/auth/login', body, { authorization: '' });
      expect(res).toMatchObject({ status: 401, body: { detail: 'Invalid username or password' } });
    }
  });

  it('every other /api path needs a valid bearer token: missing, garbled, other algorithm, expired → 401', async () => {
    t = await testApp(database);
    expect((await t.request('GET', '/api/generator/state', undefined, { authorization: '' })).status).toBe(
      401,
    );
    expect(
      (await t.request('POST', '/api/generator/stop', {}, { authorization: 'Bearer abc.def.ghi' })).status,
    ).toBe(401);
    const hs512 = await new SignJWT({ pwv: 0 })
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject('admin')
      .setJti('x')
      .setIssuer('outpost-controller')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('test-secret-test-secret-test-secret'));
    expect(
      (await t.request('GET', '/api/generator/state', undefined, { authorization: `Bearer ${hs512}` }))
        .status,
    ).toBe(401);
    t.clock.advance(7 * 86400 * 1000 + 1000);
    const expired = await t.request('GET', '/api/generator/state');
    expect(expired).toMatchObject({ status: 401, body: { detail: 'Invalid or expired token' } });
    expect(expired.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('logout revokes the token', async () => {
    t = await testApp(database);
    await t.login();
    expect((await t.request('POST', '/api/auth/logout')).status).toBe(200);
    expect((await t.request('GET', '/api/generator/state')).status).toBe(401);
  });

  it('password change: wrong current 422, short new 422, success ends older sessions', async () => {
    t = await testApp(database);
    await t.login();
    const old = t.token;
    expect(
      (
        await t.request('POST', '/api/auth/password', {
          current_password: 'bad',
          new_password: 'a-long-new-password',
        })
      ).status,
    ).toBe(422);
    const short = await t.request('POST', '/api/auth/password', {
      current_password: ADMIN.password,
      new_password: 'short',
    });
    expect(short.status).toBe(422);
    expect(short.body.detail).toMatch(/new_password/);
    const ok = await t.request('POST', '/api/auth/password', {
      current_password: ADMIN.password,
      new_password: 'a-long-new-password',
    });
    expect(ok.status).toBe(200);
    expect(
      (await t.request('GET', '/api/generator/state', undefined, { authorization: `Bearer ${old}` })).status,
    ).toBe(401);
    const again = await t.request(
      'POST',
      '/api/auth/login',
      { username: 'admin', password: 'a-long-new-password' },
      { authorization: '' },
    );
    expect(again.status).toBe(200);
    t.setToken(again.body.access_token);
    await t.request('POST', '/api/auth/password', {
      current_password: 'a-long-new-password',
      new_password: ADMIN.password,
    });
  });
});

describe('rate limits and headers', () => {
  it('/api/auth allows 5 requests per minute per client, then 429 with Retry-After', async () => {
    t = await testApp(database);
    const root = buildGateway(t.svc, { logger: pino({ level: 'silent' }) });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 6; i++) {
      const res = await root.request('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'wrong-password' }),
      });
      statuses.push(res.status);
      retryAfter = res.headers.get('retry-after');
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  });

  it('/api allows 30 requests per second per client, then 429', async () => {
    t = await testApp(database);
    const root = buildGateway(t.svc, { logger: pino({ level: 'silent' }) });
    const results = await Promise.all(
      Array.from({ length: 31 }, () =>
        root.request('/api/generator/state', { headers: { authorization: `Bearer ${t.token}` } }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(30);
    const limited = results.find((r) => r.status === 429);
    expect(await limited?.json()).toEqual({ detail: 'Too many requests' });
    expect(limited?.headers.get('retry-after')).toBe('1');
  });

  it('responses carry the security headers', async () => {
    t = await testApp(database);
    const res = await t.request('GET', '/health');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

// Addresses other than loopback below are allowlist entries and X-Forwarded-For values only: every
// request goes to a server bound to 127.0.0.1.
describe('IP allowlist over a real socket', () => {
  const serve = async (allowedIps: string, trustedProxies?: string) => {
    t = await testApp(database);
    const root = buildGateway(t.svc, { logger: pino({ level: 'silent' }), allowedIps, trustedProxies });
    const srv = await serveApp(root, { port: 0, host: '127.0.0.1' });
    expect(new URL(srv.url).hostname).toBe('127.0.0.1');
    return srv;
  };

  it('a client off the list gets 403 everywhere, health included', async () => {
    const srv = await serve('10.0.0.0/8, 192.168.1.7');
    try {
      for (const path of ['/health', '/api/generator/state', '/api/auth/login']) {
        const res = await fetch(`${srv.url}${path}`);
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual({ detail: 'Forbidden: client address not allowed' });
      }
    } finally {
      await srv.close();
    }
  });

  it('a client on the list (CIDR) is let through', async () => {
    const srv = await serve('127.0.0.0/8');
    try {
      expect((await fetch(`${srv.url}/health`)).status).toBe(200);
    } finally {
      await srv.close();
    }
  });

  it('X-Forwarded-For counts only from a trusted proxy, and the audit log shows the real client', async () => {
    const untrusted = await serve('10.0.0.0/8');
    try {
      expect(
        (await fetch(`${untrusted.url}/health`, { headers: { 'x-forwarded-for': '10.1.2.3' } })).status,
      ).toBe(403);
    } finally {
      await untrusted.close();
      await t.close();
    }
    const srv = await serve('10.0.0.0/8', '127.0.0.1');
    try {
      expect((await fetch(`${srv.url}/health`, { headers: { 'x-forwarded-for': '10.1.2.3' } })).status).toBe(
        200,
      );
      const arm = await fetch(`${srv.url}/api/generator/arm`, {
        method: 'POST',
        headers: { 'x-forwarded-for': '203.0.113.9, 10.1.2.3', authorization: `Bearer ${t.token}` },
      });
      expect(arm.status).toBe(200);
      const audit = await fetch(`${srv.url}/api/audit?limit=5`, {
        headers: { 'x-forwarded-for': '10.1.2.3', authorization: `Bearer ${t.token}` },
      });
      const entries = (await audit.json()) as { action: string; from: string }[];
      expect(entries.find((e) => e.action === 'generator.arm')?.from).toBe('10.1.2.3');
    } finally {
      await srv.close();
    }
  });

  it('parses IPs and CIDRs, IPv6 and IPv4-mapped, and names a bad entry', () => {
    const ranges = parseRanges('10.0.0.0/8, ::1, 2001:db8::/32', 'ALLOWED_IPS');
    expect(inRanges('10.9.8.7', ranges)).toBe(true);
    expect(inRanges('::ffff:10.9.8.7', ranges)).toBe(true);
    expect(inRanges('::1', ranges)).toBe(true);
    expect(inRanges('2001:db8:1::5', ranges)).toBe(true);
    expect(inRanges('11.0.0.1', ranges)).toBe(false);
    expect(() => parseRanges('10.0.0.0/8, banana', 'ALLOWED_IPS')).toThrow(
      'ALLOWED_IPS: "banana" is not an IP address or CIDR range',
    );
    expect(clientAddress('10.0.0.1', '1.2.3.4, 10.0.0.2', parseRanges('10.0.0.0/8', 'T'))).toBe('1.2.3.4');
    expect(clientAddress('8.8.8.8', '1.2.3.4', parseRanges('10.0.0.0/8', 'T'))).toBe('8.8.8.8');
  });
});
