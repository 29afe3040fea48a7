import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseDashboardConfig } from '../../src/config.js';
import { type Dashboard, startDashboard } from '../../src/app.js';
import { silentLogger, testConfig } from '../helpers.js';

/**
 * A page on another site must not read the fleet through a visitor's browser: /ws refuses a browser
 * Origin that is neither the dashboard's own nor in ALLOWED_ORIGINS, while tools that send no Origin
 * keep working. And /health tells a caller without DASHBOARD_AUTH's credentials only that it is up.
 */

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** The status a real WebSocket client's upgrade gets (101 once it opened and got its first frame). */
function upgrade(
  dash: Dashboard,
  headers: Record<string, string>,
): Promise<{ status: number; first?: unknown }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${dash.url.replace(/^http/, 'ws')}/ws`, { headers });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    ws.once('message', (data) => {
      resolve({ status: 101, first: JSON.parse(String(data)) });
      ws.close();
    });
    ws.on('error', () => {});
  });
}

const CREDS = { username: 'ops', password: 'dashboard-health-pass' };
const GOOD = {
  authorization: `Basic ${Buffer.from(`${CREDS.username}:${CREDS.password}`).toString('base64')}`,
};

let mqttUrl: string;
let open: Dashboard;
let locked: Dashboard;

beforeAll(async () => {
  // No broker listens there: the dashboard serves an offline fleet, which is all these tests need.
  mqttUrl = `mqtt://127.0.0.1:${await freePort()}`;
  open = await startDashboard(testConfig({ mqttUrl, allowedOrigins: ['https://grafana.lan:3000'] }), {
    logger: silentLogger,
  });
  locked = await startDashboard(testConfig({ mqttUrl, auth: CREDS }), { logger: silentLogger });
});

afterAll(async () => {
  await open?.close();
  await locked?.close();
});

describe('dashboard /ws Origin check (security)', () => {
  it('a client without Origin (curl, scripts, Grafana plugins) still gets the stream', async () => {
    const res = await upgrade(open, {});
    expect(res.status).toBe(101);
    expect(res.first).toMatchObject({ type: 'fleet_state' });
  });

  it("the dashboard's own page (Origin matching the Host it was served from) gets the stream", async () => {
    const own = new URL(open.url).origin;
    expect((await upgrade(open, { origin: own })).status).toBe(101);
  });

  it('an origin listed in ALLOWED_ORIGINS gets the stream', async () => {
    expect((await upgrade(open, { origin: 'https://grafana.lan:3000' })).status).toBe(101);
  });

  it('a page from another site, an opaque origin or a look-alike is refused with 403 before the upgrade', async () => {
    const port = new URL(open.url).port;
    for (const origin of [
      'https://evil.example',
      'null',
      'https://grafana.lan:3001',
      `http://127.0.0.1.evil.example:${port}`,
      `http://localhost:${port}`,
      'file://',
      'not a url',
    ]) {
      expect((await upgrade(open, { origin })).status, origin).toBe(403);
    }
    // The refused attempts took no client slot.
    expect(open.sockets.clients).toBe(0);
  });

  it('ALLOWED_ORIGINS takes origins only, and a bad entry stops the start naming the variable', () => {
    expect(
      parseDashboardConfig({ ALLOWED_ORIGINS: 'https://a.lan, http://b.lan:8080/' }).allowedOrigins,
    ).toEqual(['https://a.lan', 'http://b.lan:8080']);
    for (const bad of ['a.lan', 'https://a.lan/path', 'ftp://a.lan', '*'])
      expect(() => parseDashboardConfig({ ALLOWED_ORIGINS: bad }), bad).toThrow(/ALLOWED_ORIGINS/);
  });
});

describe('dashboard /health detail (security)', () => {
  it('without DASHBOARD_AUTH there is no credential, so /health is {status} only', async () => {
    expect(await (await fetch(`${open.url}/health`)).json()).toEqual({ status: 'healthy' });
  });

  it('with DASHBOARD_AUTH: {status} without or with wrong credentials, the broker state with the right ones', async () => {
    const wrong = { authorization: `Basic ${Buffer.from('ops:wrong').toString('base64')}` };
    for (const headers of [{}, wrong]) {
      const res = await fetch(`${locked.url}/health`, { headers });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'healthy' });
    }
    expect(await (await fetch(`${locked.url}/health`, { headers: GOOD })).json()).toMatchObject({
      status: 'healthy',
      service: 'dashboard',
      broker: 'disconnected',
    });
  });

  it('METRICS_TOKEN with DASHBOARD_AUTH: /metrics takes the token, the rest keeps the basic auth', async () => {
    const token = 'dashboard-scrape-token-0123';
    const both = await startDashboard(testConfig({ mqttUrl, auth: CREDS, metricsAuth: { token } }), {
      logger: silentLogger,
    });
    try {
      expect((await fetch(`${both.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${both.url}/metrics`, { headers: GOOD })).status).not.toBe(200);
      const scraped = await fetch(`${both.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/dashboard_/);
      expect(
        (await fetch(`${both.url}/api/status`, { headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(401);
      expect((await fetch(`${both.url}/api/status`, { headers: GOOD })).status).toBe(200);
    } finally {
      await both.close();
    }
  });
});
