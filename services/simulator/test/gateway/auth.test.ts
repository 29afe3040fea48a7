import { readFileSync } from 'node:fs';
import { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { Api, startTestSim, TEST_PASSWORD, TEST_USER, type TestSim } from '../helpers/sim.js';

/** The release version: the root package.json's, reported by every service. */
const RELEASE = (
  JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

const sims: TestSim[] = [];
afterEach(async () => {
  for (const s of sims.splice(0)) await s.close();
});
async function sim(env: Record<string, string> = {}, clock?: ManualClock) {
  const s = await startTestSim(env, { login: false, clock });
  sims.push(s);
  return s;
}

const PROTECTED = [
  ['GET', '/api/status'],
  ['POST', '/api/auth/logout'],
  ['POST', '/api/control'],
  ['POST', '/api/position'],
  ['POST', '/api/config/modes'],
  ['POST', '/api/config/network'],
  ['POST', '/api/config/nmea'],
  ['POST', '/api/config/serial'],
  ['GET', '/api/serial/devices'],
  ['POST', '/api/serial/select'],
  ['GET', '/api/airports/lookup/KSFO'],
  ['GET', '/api/airports/search?q=KS'],
  ['GET', '/api/airports/list'],
] as const;

describe('session cookie authentication', () => {
  it('login sets gps_session: HttpOnly, SameSite=Lax, no Max-Age or Expires', async () => {
    const s = await sim();
    const res = await fetch(`${s.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: TEST_USER, password: TEST_PASSWORD }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ authenticated: true, username: TEST_USER, bypass_auth: false });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^gps_session=[A-Za-z0-9_-]{40,};/);
    const attrs = cookie.split(';').map((a) => a.trim().toLowerCase());
    expect(attrs).toContain('httponly');
    expect(attrs).toContain('samesite=lax');
    expect(attrs).toContain('path=/');
    expect(attrs.some((a) => a.startsWith('max-age') || a.startsWith('expires'))).toBe(false);
  });

  it('every /api/* but login and the session status answers 401 {detail} without a session; /health stays open', async () => {
    const s = await sim();
    const anon = new Api(s.url);
    for (const [method, path] of PROTECTED) {
      const res = await anon.request(method, path, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toEqual({ detail: 'Not authenticated' });
    }
    // The console asks this first: no session is an answer, not a failed request.
    const check = await anon.get('/api/auth/check');
    expect(check.status).toBe(200);
    expect(check.body).toEqual({ authenticated: false, username: null, bypass_auth: false });
    const health = await anon.get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'healthy' });
    const operator = new Api(s.url);
    expect((await operator.login()).status).toBe(200);
    expect((await operator.get('/health')).body).toMatchObject({
      status: 'healthy',
      running: false,
      version: RELEASE,
    });
  });

  it('a forged cookie is not a session; logout ends a real one', async () => {
    const s = await sim();
    const forged = new Api(s.url);
    forged.cookie = 'gps_session=not-a-real-session-token';
    expect((await forged.get('/api/status')).status).toBe(401);

    const api = new Api(s.url);
    await api.login();
    const cookie = api.cookie;
    expect((await api.get('/api/auth/check')).body).toEqual({
      authenticated: true,
      username: TEST_USER,
      bypass_auth: false,
    });
    expect((await api.post('/api/auth/logout')).body).toMatchObject({ authenticated: false });
    expect((await api.get('/api/auth/check')).body).toEqual({
      authenticated: false,
      username: null,
      bypass_auth: false,
    });
    const replay = new Api(s.url);
    replay.cookie = cookie;
    expect((await replay.get('/api/status')).status).toBe(401);
  });

  it('wrong credentials get 401; five failures a minute from one client then 429 with Retry-After', async () => {
    const clock = new ManualClock();
    // The login limiter (rate-limiter-flexible) reads Date: it moves with the injected clock here.
    vi.useFakeTimers({ toFake: ['Date'], now: clock.now() });
    const advance = (ms: number) => {
      clock.advance(ms);
      vi.setSystemTime(clock.now());
    };
    try {
      const s = await sim({}, clock);
      const api = new Api(s.url);
      for (let i = 0; i < 5; i++) {
        const res = await api.login(TEST_USER, `wrong-${i}`);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ detail: 'Invalid username or password' });
      }
      expect((await api.login('someone-else', TEST_PASSWORD)).status).toBe(429);
      // Even the right password waits out the lockout.
      const blocked = await api.login();
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBe(60);
      expect(blocked.body.detail).toMatch(/Too many failed login attempts/);
      advance(30_000);
      expect(Number((await api.login()).headers.get('retry-after'))).toBe(30);
      advance(30_001);
      expect((await api.login()).status).toBe(200);
      expect((await api.get('/api/status')).status).toBe(200);
      // A success clears the count: four more failures are still answered 401.
      const other = new Api(s.url);
      for (let i = 0; i < 4; i++) expect((await other.login(TEST_USER, 'nope')).status).toBe(401);
      expect((await other.login()).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await other.login(TEST_USER, 'nope')).status).toBe(401);
      expect((await other.login(TEST_USER, 'nope')).status).toBe(429);
    } finally {
      vi.useRealTimers();
    }
  });

  it('LOGIN_MAX_FAILURES=0 turns the login limit off', async () => {
    const s = await sim({ LOGIN_MAX_FAILURES: '0' });
    const api = new Api(s.url);
    for (let i = 0; i < 8; i++) expect((await api.login(TEST_USER, 'nope')).status).toBe(401);
    expect((await api.login()).status).toBe(200);
  });

  it('a session unused for 24 h is forgotten server-side', async () => {
    const clock = new ManualClock();
    const s = await sim({}, clock);
    const api = new Api(s.url);
    await api.login();
    clock.advance(23 * 3600 * 1000);
    expect((await api.get('/api/status')).status).toBe(200);
    clock.advance(24 * 3600 * 1000 + 1);
    expect((await api.get('/api/status')).status).toBe(401);
  });

  it('BYPASS_AUTH=true: every /api/* endpoint answers without a session', async () => {
    const s = await sim({ BYPASS_AUTH: 'true' });
    const anon = new Api(s.url);
    expect((await anon.get('/api/status')).status).toBe(200);
    expect((await anon.get('/api/airports/lookup/ksfo')).body).toMatchObject({ airport: { icao: 'KSFO' } });
    expect((await anon.get('/api/auth/check')).body).toMatchObject({ bypass_auth: true });
  });

  it('the WebSocket needs the session cookie too, and refuses other origins', async () => {
    const s = await sim();
    const wsUrl = `${s.url.replace('http', 'ws')}/ws`;
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(wsUrl);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    expect(refused).toBe(401);
    const api = new Api(s.url);
    await api.login();
    const foreign = await new Promise<number>((resolve) => {
      const w = new WebSocket(wsUrl, { headers: { cookie: api.cookie! }, origin: 'http://evil.example' });
      w.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      w.on('open', () => resolve(101));
      w.on('error', () => {});
    });
    expect(foreign).toBe(403);
    const ws = new WebSocket(wsUrl, { headers: { cookie: api.cookie! }, origin: s.url });
    const first = await new Promise<{ type: string }>((resolve) =>
      ws.once('message', (m) => resolve(JSON.parse(String(m)))),
    );
    expect(first.type).toBe('status_update');
    ws.close();
  });
});
