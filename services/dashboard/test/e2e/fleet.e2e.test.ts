import { createSocket, type Socket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import { type RunningBroker, startBroker } from '@outpost/broker';
import {
  browserTestsEnabled,
  DESKTOP,
  type E2EBrowser,
  freePort,
  openBrowser,
  PHONE,
  type ServiceProcess,
  screenshot,
  startService,
} from '@outpost/ui/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DASHBOARD_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const { port } = s.address();
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const SIMULATOR_MAIN = fileURLToPath(new URL('../../../simulator/dist/main.js', import.meta.url));

describe.skipIf(!browserTestsEnabled())('fleet dashboard in Chromium', () => {
  let broker: RunningBroker;
  let sink: Socket;
  const feeds: ReturnType<typeof setInterval>[] = [];
  const feedOf = new Map<string, ReturnType<typeof setInterval>>();
  const sims = new Map<string, ServiceProcess>();
  let dash: ServiceProcess;
  let b: E2EBrowser;

  /**
   * The spec's heartbeat comes from rebroadcasters: each simulator is auto-started as one, fed JSON
   * positions over UDP by this test and retransmitting to a local sink.
   */
  async function startSim(id: string, lat: number, lon: number): Promise<void> {
    const port = await freePort();
    const listen = await freeUdpPort();
    sims.set(
      id,
      await startService(
        SIMULATOR_MAIN,
        {
          HOST: '127.0.0.1',
          PORT: String(port),
          LISTEN_HOST: '127.0.0.1',
          USERNAME: 'pilot',
          PASSWORD: 'e2e secret',
          BYPASS_AUTH: 'false',
          MQTT_URL: broker.url,
          SERVICE_ID: id,
          SIMULATOR_IP: '127.0.0.1',
          AUTO_START_MODE: 'rebroadcaster',
          AUTO_START_PROTOCOL: 'udp',
          AUTO_START_LISTEN_PORT: String(listen),
          AUTO_START_UDP_RETRANSMIT: 'true',
          AUTO_START_UDP_RETRANSMIT_IP: '127.0.0.1',
          AUTO_START_UDP_RETRANSMIT_PORT: String(sink.address().port),
        },
        port,
      ),
    );
    const line = `${JSON.stringify({ lat, lon, alt_ft: 1500, speed_kts: 120, heading: 90 })}\n`;
    const feed = setInterval(() => sink.send(line, listen, '127.0.0.1'), 400);
    feeds.push(feed);
    feedOf.set(id, feed);
  }

  beforeAll(async () => {
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
    sink = createSocket('udp4');
    await new Promise<void>((r) => sink.bind(0, '127.0.0.1', () => r()));
    await Promise.all([
      startSim('sim-alpha', 47.52704, -122.29995),
      startSim('sim-bravo', 47.44794, -122.31028),
    ]);
    const port = await freePort();
    dash = await startService(
      DASHBOARD_MAIN,
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        MQTT_URL: broker.url,
        EXPECTED_SIMULATORS: 'sim-alpha,sim-bravo,sim-never',
        EXPECTED_SITES: 'gen-1:relay-1',
      },
      port,
    );
    b = await openBrowser();
  }, 40_000);

  afterAll(async () => {
    await b?.close();
    await dash?.stop();
    await Promise.all([...sims.values()].map((s) => s.stop()));
    for (const f of feeds) clearInterval(f);
    sink?.close();
    await broker?.close();
  });

  const cell = (page: Page, id: string, col: string) =>
    page.locator(`tr[data-row="${id}"] td[data-col="${col}"]`);
  const rowIds = (page: Page, table: string) =>
    page
      .locator(`table[aria-label="${table}"] tbody tr`)
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-row')));

  let desktop: Page;
  let phone: Page;

  it('lists every simulator with its state, live, and the generator sites', async () => {
    desktop = (await b.newSession(DESKTOP)).page;
    phone = (await b.newSession(PHONE, 'dark')).page;
    await desktop.goto(dash.url);
    await phone.goto(dash.url);
    for (const page of [desktop, phone]) {
      await expect
        .poll(() => cell(page, 'sim-alpha', 'online').textContent(), { timeout: 8000 })
        .toBe('online');
      await expect
        .poll(() => cell(page, 'sim-bravo', 'online').textContent(), { timeout: 8000 })
        .toBe('online');
      await expect.poll(() => page.getByTestId('conn').textContent()).toBe('live');
    }
    expect(await cell(desktop, 'sim-never', 'online').textContent()).toBe('offline');
    expect(await cell(desktop, 'sim-alpha', 'mode').textContent()).toBe('rebroadcaster');
    expect(await cell(desktop, 'sim-alpha', 'receiving').textContent()).toBe('yes');
    expect(await cell(desktop, 'sim-alpha', 'lat').textContent()).toBe('47.52704');
    expect(await cell(desktop, 'gen-1', 'controller').textContent()).toBe('offline');
    expect(await desktop.getByTestId('summary').textContent()).toBe('2 of 3 simulators online');

    // Uptime is pushed every second, not fetched once.
    const before = await cell(desktop, 'sim-alpha', 'uptime').textContent();
    await expect
      .poll(() => cell(desktop, 'sim-alpha', 'uptime').textContent(), { timeout: 4000 })
      .not.toBe(before);

    await screenshot(desktop, 'dashboard-desktop');
    await screenshot(phone, 'dashboard-phone-dark');
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      PHONE.width,
    );
  }, 30_000);

  it('sorts by a column header and filters by id and by status', async () => {
    const header = desktop.locator('table[aria-label="Simulators"] th button', { hasText: 'Simulator' });
    await header.click();
    expect(await rowIds(desktop, 'Simulators')).toEqual(['sim-alpha', 'sim-bravo', 'sim-never']);
    await header.click();
    expect(await rowIds(desktop, 'Simulators')).toEqual(['sim-never', 'sim-bravo', 'sim-alpha']);

    await desktop.locator('input[name=filter]').fill('brav');
    expect(await rowIds(desktop, 'Simulators')).toEqual(['sim-bravo']);
    await desktop.locator('input[name=filter]').fill('');
    await desktop.locator('select[name=status]').selectOption('offline');
    expect(await rowIds(desktop, 'Simulators')).toEqual(['sim-never']);
    await desktop.locator('select[name=status]').selectOption('all');
    expect(await rowIds(desktop, 'Simulators')).toHaveLength(3);
  });

  it('shows a simulator that dies as offline within 3 s, in every open browser', async () => {
    const t0 = Date.now();
    await sims.get('sim-bravo')!.kill();
    await Promise.all(
      [desktop, phone].map((page) =>
        cell(page, 'sim-bravo', 'online').filter({ hasText: 'offline' }).waitFor({ timeout: 3000 }),
      ),
    );
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeLessThan(3000);
    expect(await cell(desktop, 'sim-alpha', 'online').textContent()).toBe('online');
    expect(await desktop.getByTestId('summary').textContent()).toBe('1 of 3 simulators online');
    console.info(`dashboard row went offline ${elapsed} ms after SIGKILL`);
  }, 10_000);

  it('shows "feed lost" for a rebroadcaster whose position feed stops, within 10 s', async () => {
    expect(await cell(desktop, 'sim-alpha', 'online').textContent()).toBe('online');
    const t0 = Date.now();
    clearInterval(feedOf.get('sim-alpha'));
    await cell(desktop, 'sim-alpha', 'online').filter({ hasText: 'feed lost' }).waitFor({ timeout: 10_000 });
    expect(Date.now() - t0).toBeLessThan(10_000);
    // The process is still up and the emulator still running: only the input is gone.
    expect(await cell(desktop, 'sim-alpha', 'process').textContent()).toBe('up');
    expect(await cell(desktop, 'sim-alpha', 'running').textContent()).toBe('yes');
    expect(await cell(desktop, 'sim-alpha', 'receiving').textContent()).toBe('no');
    await screenshot(desktop, 'dashboard-feed-lost');
  }, 15_000);

  it('serves the page compressed with caching headers, and logged no console errors', async () => {
    const index = await fetch(`${dash.url}/`, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(index.headers.get('content-encoding')).toBe('br');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(await index.text())?.[1];
    const js = await fetch(`${dash.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(b.errors).toEqual([]);
    expect(b.apiRejections).toEqual([]);
  });
});
