import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import {
  browserTestsEnabled,
  DESKTOP,
  type E2EBrowser,
  freePort,
  mapIdle,
  openBrowser,
  PHONE,
  type ServiceProcess,
  renderedValues,
  screenshot,
  startService,
} from '@outpost/ui/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START_MESSAGES } from '../../src/domain/start-validation.js';
import { UdpCapture } from '../helpers/net.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const USER = 'pilot';
const PASSWORD = 'e2e secret';
const NMEA_LINE = /^\$GP[A-Z]{3},.*\*[0-9A-F]{2}$/m;

describe.skipIf(!browserTestsEnabled())('simulator console in Chromium', () => {
  let sim: ServiceProcess;
  let efb: UdpCapture;
  let b: E2EBrowser;

  beforeAll(async () => {
    efb = await UdpCapture.open('127.0.0.1');
    const port = await freePort();
    sim = await startService(
      MAIN,
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        LISTEN_HOST: '127.0.0.1',
        USERNAME: USER,
        PASSWORD,
        BYPASS_AUTH: 'false',
        EFB_PORT: String(efb.port),
        EFB_BROADCAST_ADDRESS: '127.255.255.255',
      },
      port,
    );
    b = await openBrowser();
  }, 30_000);

  afterAll(async () => {
    await b?.close();
    await sim?.stop();
    await efb?.close();
  });

  async function login(page: Page): Promise<void> {
    await page.goto(sim.url);
    await page.locator('input[name=username]').fill(USER);
    await page.locator('input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Operating mode' }).waitFor();
    await expect.poll(() => page.getByTestId('conn').textContent()).toBe('live');
  }

  const messages = (page: Page) => page.getByTestId('start-messages').locator('li').allTextContents();

  async function clickStart(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Start', exact: true }).click();
  }

  it('first load before login: the login form, and no failed request or console error', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning')
        problems.push(`console ${msg.type()}: ${msg.text()}`);
    });
    page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    const checks: number[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/api/auth/check') checks.push(r.status());
    });
    await page.goto(sim.url);
    await page.locator('input[name=username]').waitFor();
    await page.waitForLoadState('networkidle');
    expect(checks).toEqual([200]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses a wrong password with the server detail, then logs in and out', async () => {
    const { context, page } = await b.newSession(PHONE);
    await page.goto(sim.url);
    await screenshot(page, 'simulator-login-phone');
    await page.locator('input[name=username]').fill(USER);
    await page.locator('input[name=password]').fill('wrong');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid username or password' }).waitFor();
    await page.locator('input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Operating mode' }).waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await page.setViewportSize(DESKTOP);
    await screenshot(page, 'simulator-login-desktop');
    await context.close();
  }, 20_000);

  it('shows each start message for its missing choice, without sending a start', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    const controlCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/control')) controlCalls.push(r.method());
    });
    await login(page);
    const check = async (expected: string[]) => {
      await clickStart(page);
      await expect.poll(() => messages(page)).toEqual(expected);
    };
    const box = (name: string) => page.locator(`input[name=${name}]`);

    await check([START_MESSAGES.mode, START_MESSAGES.airport]);
    await page.locator('input[name=mode][value=standalone]').check();
    await check([START_MESSAGES.airport, START_MESSAGES.standaloneOutput]);
    await box('usb_output').check();
    await check([START_MESSAGES.airport, START_MESSAGES.usbDevice]);
    await box('usb_output').uncheck();
    await box('efb_enabled').check();
    await check([START_MESSAGES.airport, START_MESSAGES.standaloneOutput, START_MESSAGES.efbSubOption]);
    await box('efb_ip_enabled').check();
    await check([START_MESSAGES.airport, START_MESSAGES.efbSimName, START_MESSAGES.efbTargetIps]);
    await page.locator('input[name=mode][value=sender]').check();
    await check([
      START_MESSAGES.airport,
      START_MESSAGES.senderTargetIp,
      START_MESSAGES.efbSimName,
      START_MESSAGES.efbTargetIps,
    ]);
    await box('efb_ip_enabled').uncheck();
    await box('efb_enabled').uncheck();
    await page.locator('input[name=mode][value=rebroadcaster]').check();
    await check([START_MESSAGES.rebroadcastOutput]);
    await box('rebroadcast_usb').check();
    await check([START_MESSAGES.rebroadcastUsbDevice]);
    await box('rebroadcast_usb').uncheck();
    await box('rebroadcast_udp').check();
    await check([START_MESSAGES.rebroadcastOutput, START_MESSAGES.rebroadcastUdpIp]);
    await box('rebroadcast_udp').uncheck();

    expect(controlCalls).toEqual([]);
    await expect.poll(() => page.getByTestId('run-state').textContent()).toBe('stopped');
    await context.close();
  }, 30_000);

  it('shows the server banner when the listen port is taken, and stays stopped', async () => {
    const taken = createSocket('udp4');
    await new Promise<void>((r) => taken.bind(0, '127.0.0.1', () => r()));
    const { context, page } = await b.newSession(DESKTOP);
    try {
      await login(page);
      await page.locator('input[name=mode][value=rebroadcaster]').check();
      await page.locator('input[name=rebroadcast_udp]').check();
      await page.locator('input[name=rebroadcast_udp_ip]').fill('127.0.0.1');
      await page.locator('input[name=listen_port]').fill(String(taken.address().port));
      await clickStart(page);
      await page
        .getByRole('alert')
        .filter({ hasText: /in use/i })
        .waitFor();
      await expect.poll(() => page.getByTestId('run-state').textContent()).toBe('stopped');
      await page.locator('input[name=rebroadcast_udp]').uncheck();
    } finally {
      await context.close();
      taken.close();
    }
  }, 20_000);

  it('picks an airport by name, runs stand-alone with EFB to 127.0.0.1 and streams NMEA', async () => {
    const a = await b.newSession(DESKTOP);
    const other = await b.newSession(PHONE, 'dark');
    await login(a.page);
    await login(other.page);
    const page = a.page;

    await page.locator('input[name=airport-search]').fill('boeing');
    await page.getByRole('button', { name: /KBFI/ }).click();
    await expect.poll(() => page.getByTestId('selected-airport').textContent()).toContain('Boeing Field');
    // The other browser hears of the change over its WebSocket and fetches the record itself.
    await expect.poll(() => other.page.getByTestId('selected-airport').textContent()).toContain('KBFI');
    await expect
      .poll(() => other.page.getByTestId('selected-airport').textContent())
      .toContain('Boeing Field');

    await page.locator('input[name=mode][value=standalone]').check();
    await page.locator('input[name=efb_enabled]').check();
    await page.locator('input[name=efb_ip_enabled]').check();
    await page.locator('input[name=efb_sim_name]').fill('E2E Sim');
    await page.locator('input[name=efb_target_ips]').fill('127.0.0.1');
    await clickStart(page);

    await expect.poll(() => page.getByTestId('run-state').textContent(), { timeout: 5000 }).toBe('running');
    await expect.poll(() => page.getByTestId('nmea-log').textContent(), { timeout: 5000 }).toMatch(NMEA_LINE);
    await expect
      .poll(() => other.page.getByTestId('nmea-log').textContent(), { timeout: 5000 })
      .toMatch(NMEA_LINE);
    await expect.poll(() => page.getByTestId('lat').textContent()).toBe('47.52704° N');
    await expect
      .poll(() => efb.received.some((d) => d.text.startsWith('XGPSE2E Sim,')), { timeout: 5000 })
      .toBe(true);
    expect(await page.getByTestId('start-messages').count()).toBe(0);

    // Settings stay editable while running: a new EFB name goes out from the next line, no stop needed.
    await page.locator('input[name=efb_sim_name]').fill('E2E Live');
    await page.locator('input[name=efb_sim_name]').press('Enter');
    await expect
      .poll(() => efb.received.some((d) => d.text.startsWith('XGPSE2E Live,')), { timeout: 5000 })
      .toBe(true);
    expect(await page.getByTestId('run-state').textContent()).toBe('running');

    await screenshot(page, 'simulator-console-desktop');
    await screenshot(other.page, 'simulator-console-phone-dark');
    const phoneBackground = await other.page.evaluate<string>(
      'getComputedStyle(document.body).backgroundColor',
    );
    expect(phoneBackground).toBe('rgb(17, 20, 24)');
    const phoneOverflow = await other.page.evaluate<number>('document.documentElement.scrollWidth');
    expect(phoneOverflow).toBeLessThanOrEqual(PHONE.width);

    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => other.page.getByTestId('run-state').textContent()).toBe('stopped');
    await a.context.close();
    await other.context.close();
  }, 40_000);

  it('says so when the picked airport has no known elevation', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    await login(page);
    await page.locator('input[name=airport-search]').fill('Rothera');
    const choice = page.getByRole('button', { name: /AAXX/ });
    await expect.poll(() => choice.textContent()).toContain('elevation unknown');
    await choice.click();
    await expect
      .poll(() => page.getByTestId('elevation-unknown').textContent())
      .toBe('elevation unknown, starting at 0 ft');
    await context.close();
  }, 20_000);

  it('builds a route with the airport search, flies it, shows the 422 of a bad one, and clears it', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    await login(page);
    const search = page.locator('input[name=route-airport-search]');
    await search.fill('KSFO');
    await page
      .getByRole('list', { name: 'Route airports found' })
      .getByRole('button', { name: /KSFO/ })
      .click();
    await page.getByRole('button', { name: 'Fly this route' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('at least 2 points');

    await search.fill('Oakland');
    await page
      .getByRole('list', { name: 'Route airports found' })
      .getByRole('button', { name: /KOAK/ })
      .click();
    await page.locator('input[name=route-coords]').fill('37.70, -122.30');
    await page.getByRole('button', { name: 'Add point' }).click();
    expect(await page.getByRole('list', { name: 'Route', exact: true }).locator('li').count()).toBe(3);
    await page.getByRole('button', { name: 'Fly this route' }).click();
    await expect
      .poll(() => page.getByTestId('flight-progress').textContent())
      .toMatch(/takeoff · leg 1 KSFO → KOAK/);
    await expect.poll(() => page.getByTestId('selected-airport').textContent()).toContain('KSFO');

    await page.getByRole('button', { name: 'Clear flight plan' }).click();
    await expect.poll(() => page.getByTestId('flight-progress').count()).toBe(0);
    await context.close();
  }, 20_000);

  it('uploads a GPX track, shows its points and skips, pauses and unloads it', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    await login(page);
    const pts = [0, 1, 2]
      .map(
        (i) =>
          `<trkpt lat="${47.4 + i / 100}" lon="-122.3"><ele>50</ele><time>2026-05-03T09:00:${10 + i * 10}Z</time></trkpt>`,
      )
      .join('');
    const file = `<?xml version="1.0"?><gpx><trk><trkseg>${pts}<trkpt lat="x" lon="1"/></trkseg></trk></gpx>`;
    await page.locator('input[name=replay-file]').setInputFiles({
      name: 'track.gpx',
      mimeType: 'application/gpx+xml',
      buffer: Buffer.from(file),
    });
    await expect
      .poll(() => page.getByTestId('replay-state').textContent())
      .toMatch(/GPX · 3 points · 1 skipped · 0 \/ 20 s/);
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.getByTestId('replay-state').textContent()).toContain('paused');
    await page.getByRole('button', { name: 'Unload' }).click();
    await expect.poll(() => page.getByTestId('replay-state').count()).toBe(0);
    await context.close();
  }, 20_000);

  it("the map draws the basemap's water, nearby airports, the route and the aircraft with no request beyond loopback", async () => {
    const { context, page } = await b.newSession(DESKTOP);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await login(page);
    const search = page.locator('input[name=route-airport-search]');
    for (const [q, icao] of [
      ['KSFO', /KSFO/],
      ['KOAK', /KOAK/],
    ] as const) {
      await search.fill(q);
      await page
        .getByRole('list', { name: 'Route airports found' })
        .getByRole('button', { name: icao })
        .click();
    }
    await page.getByRole('button', { name: 'Fly this route' }).click();
    const map = page.getByRole('figure', { name: 'Simulator position' });
    const host = map.getByTestId('geo-map');
    await expect.poll(() => renderedValues(host, 'map-route'), { timeout: 10_000 }).toEqual(['route']);
    await mapIdle(host);
    await expect.poll(async () => (await renderedValues(host, 'water-world', 'x')).length).toBeGreaterThan(0);
    await expect.poll(() => map.locator('.geo-place').count()).toBeGreaterThan(3);
    expect(await map.locator('.geo-marker').count()).toBe(3);
    // Flying it (the earlier test left stand-alone with EFB to 127.0.0.1 selected) draws the track.
    await clickStart(page);
    await expect.poll(() => page.getByTestId('run-state').textContent(), { timeout: 5000 }).toBe('running');
    await expect.poll(() => renderedValues(host, 'map-track'), { timeout: 6000 }).toEqual(['track']);
    await screenshot(page, 'simulator-map');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('button', { name: 'Clear flight plan' }).click();
    const origin = new URL(sim.url).origin;
    const elsewhere = requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
    expect(elsewhere).toEqual([]);
    await context.close();
  }, 20_000);

  it('served the console compressed and cacheable, and the pages logged no errors', async () => {
    const index = await fetch(`${sim.url}/`, { headers: { 'accept-encoding': 'br' } });
    expect(index.headers.get('content-encoding')).toBe('br');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const js = await fetch(`${sim.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(js.headers.get('cache-control')).toContain('immutable');
    const again = await fetch(`${sim.url}${script}`, {
      headers: { 'if-none-match': js.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    expect(b.errors).toEqual([]);
    // Only the answers the tests provoked: a wrong password (401), the port in use (409), a one-point route (422).
    for (const r of b.apiRejections) expect(r).toMatch(/status of (401|409|422)/);
  });
});
