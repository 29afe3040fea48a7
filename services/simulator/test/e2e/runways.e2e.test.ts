import { fileURLToPath } from 'node:url';
import {
  browserTestsEnabled,
  colourAt,
  DESKTOP,
  type E2EBrowser,
  freePort,
  mapIdle,
  mapZoom,
  near,
  onScreen,
  openBrowser,
  renderedValues,
  rgb,
  sourceValues,
  type ServiceProcess,
  screenshot,
  startService,
} from '@outpost/ui/testing';
import geodesic from 'geographiclib-geodesic';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const USER = 'pilot';
const PASSWORD = 'e2e secret';

// OurAirports runways.csv (upstream commit edd76ff3…), KSFO 28R threshold and true heading.
const THRESHOLD_28R = { lat: 37.61349868774414, lon: -122.35700225830078 };
const HEADING_28R = 298;
const THRESHOLD_10L = { lat: 37.6287, lon: -122.393 };
/** Open water of San Francisco Bay east of the 28 thresholds, and land at the airport's terminals. */
const SF_BAY = { lat: 37.6105, lon: -122.343 };
const SFO_TERMINAL = { lat: 37.6164, lon: -122.3865 };
/** The basemap's water and land (packages/ui src/map/style.ts MAP_COLOURS). */
const WATER = '#a9cbe3';
const LAND = '#eef0e6';

/** "37.61350° N" / "122.35700° W" as the readout shows them, to signed degrees. */
const degrees = (text: string | null): number => {
  const m = /^([\d.]+)° ([NSEW])$/.exec((text ?? '').trim());
  if (!m) throw new Error(`not a coordinate: ${text}`);
  return (m[2] === 'S' || m[2] === 'W' ? -1 : 1) * Number(m[1]);
};

describe.skipIf(!browserTestsEnabled())('simulator console: runways in Chromium', () => {
  let sim: ServiceProcess;
  let b: E2EBrowser;

  beforeAll(async () => {
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
        EFB_BROADCAST_ADDRESS: '127.255.255.255',
      },
      port,
    );
    b = await openBrowser();
  }, 30_000);

  afterAll(async () => {
    await b?.close();
    await sim?.stop();
  });

  async function login(page: Page): Promise<void> {
    await page.goto(sim.url);
    await page.locator('input[name=username]').fill(USER);
    await page.locator('input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Operating mode' }).waitFor();
    await expect.poll(() => page.getByTestId('conn').textContent()).toBe('live');
  }

  it("lines up on KSFO 28R from beside the airport picker: the readout shows the threshold and 298°, and the map draws KSFO's runways with the aircraft at the 28R end", async () => {
    const { context, page } = await b.newSession(DESKTOP);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await login(page);

    await page.locator('input[name=airport-search]').fill('KSFO');
    await page.getByRole('button', { name: /KSFO/ }).click();
    await expect.poll(() => page.getByTestId('selected-airport').textContent()).toContain('San Francisco');

    const runway = page.locator('select[name=runway]');
    await expect
      .poll(() => runway.locator('option').allTextContents())
      .toContain('28R · 298° true · 11,870 ft · ASP');
    expect(await runway.locator('option').count()).toBe(9);
    await runway.selectOption('28R');
    await page.getByRole('button', { name: 'Line up', exact: true }).click();

    const readout = page.getByTestId('position-readout');
    await expect
      .poll(() => readout.textContent())
      .toContain(`Heading ° (target)${HEADING_28R} (${HEADING_28R})`);
    const at = {
      lat: degrees(await page.getByTestId('lat').textContent()),
      lon: degrees(await page.getByTestId('lon').textContent()),
    };
    const off = geodesic.Geodesic.WGS84.Inverse(at.lat, at.lon, THRESHOLD_28R.lat, THRESHOLD_28R.lon).s12!;
    expect(off).toBeLessThan(30);
    expect(await readout.textContent()).toContain('Speed kt (target)0 (0)');

    // At airport scale the map draws the runways in view, KSFO's four among them, with their end names.
    const map = page.getByRole('figure', { name: 'Simulator position' });
    const host = map.getByTestId('geo-map');
    await mapIdle(host);
    const drawn = () => renderedValues(host, 'map-runway');
    await expect.poll(async () => (await drawn()).filter((id) => id.startsWith('rwy-KSFO-')).length).toBe(4);
    // The airports around have theirs on the map too (drawn as the view reaches them).
    const runwayLines = (await sourceValues(host, 'lines')).filter((id) => id.startsWith('rwy-'));
    expect(runwayLines.length).toBeGreaterThan(4);
    const labels = await map.locator('.geo-line-end:not([hidden])').allTextContents();
    expect(labels).toEqual(expect.arrayContaining(['10L', '28R', '10R', '28L', '01R', '19L', '01L', '19R']));
    // The aircraft's marker sits on the 28R end of the 10L/28R bar.
    const end = await onScreen(host, THRESHOLD_28R.lon, THRESHOLD_28R.lat);
    const hostBox = (await host.boundingBox())!;
    const dot = (await map.locator('.geo-marker .geo-dot').last().boundingBox())!;
    const mx = dot.x + dot.width / 2 - hostBox.x;
    const my = dot.y + dot.height / 2 - hostBox.y;
    expect(Math.hypot(mx - end.x, my - end.y)).toBeLessThan(2);
    // Standing at the airport the map is at 4 NM scale: the 11,870 ft runway spans a quarter of its width.
    const start = await onScreen(host, THRESHOLD_10L.lon, THRESHOLD_10L.lat);
    expect(Math.hypot(end.x - start.x, end.y - start.y)).toBeGreaterThan((hostBox.width * 100) / 480);
    // The runway bar is drawn there (the renderer's own pixel, dark on the land), and at zoom 12 the bay
    // beside it is water: the built-in basemap, with nothing fetched from anywhere else.
    const mid = {
      lon: (THRESHOLD_10L.lon + THRESHOLD_28R.lon) / 2,
      lat: (THRESHOLD_10L.lat + THRESHOLD_28R.lat) / 2,
    };
    const bar = await colourAt(host, mid.lon, mid.lat);
    expect(Math.max(...bar)).toBeLessThan(150);
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(() => mapZoom(host)).toBeCloseTo(12, 1);
    await mapIdle(host);
    expect(await renderedValues(host, 'water-detail', 'x')).not.toEqual([]);
    const water = await colourAt(host, SF_BAY.lon, SF_BAY.lat);
    expect(near(water, rgb(WATER)), `bay pixel ${water}`).toBe(true);
    const land = await colourAt(host, SFO_TERMINAL.lon, SFO_TERMINAL.lat);
    expect(near(land, rgb(LAND)), `terminal pixel ${land}`).toBe(true);
    await screenshot(page, 'simulator-runway-lineup');

    const origin = new URL(sim.url).origin;
    expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'))).toEqual([]);
    await context.close();
  }, 30_000);

  it('builds a route that starts on KSFO 28R and flies it from the threshold, heading down the runway', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    await login(page);
    const search = page.locator('input[name=route-airport-search]');
    const found = page.getByRole('list', { name: 'Route airports found' });
    await search.fill('KSFO');
    await found.getByRole('button', { name: /KSFO/ }).click();
    const start = page.locator('select[name=route-start-runway]');
    await expect.poll(() => start.locator('option').count()).toBe(9);
    await start.selectOption('28R');
    await search.fill('KOAK');
    await found.getByRole('button', { name: /KOAK/ }).click();
    const route = page.getByRole('list', { name: 'Route', exact: true }).locator('li');
    await expect.poll(() => route.allTextContents()).toEqual(['KSFO runway 28R ×', 'KOAK ×']);

    await page.getByRole('button', { name: 'Fly this route' }).click();
    await expect
      .poll(() => page.getByTestId('flight-progress').textContent())
      .toMatch(/takeoff · leg 1 KSFO → KOAK/);
    const readout = page.getByTestId('position-readout');
    await expect
      .poll(() => readout.textContent())
      .toContain(`Heading ° (target)${HEADING_28R} (${HEADING_28R})`);
    const at = {
      lat: degrees(await page.getByTestId('lat').textContent()),
      lon: degrees(await page.getByTestId('lon').textContent()),
    };
    expect(
      geodesic.Geodesic.WGS84.Inverse(at.lat, at.lon, THRESHOLD_28R.lat, THRESHOLD_28R.lon).s12!,
    ).toBeLessThan(30);
    await page.getByRole('button', { name: 'Clear flight plan' }).click();
    await expect.poll(() => page.getByTestId('flight-progress').count()).toBe(0);
    await context.close();
  }, 30_000);

  it('offers no runway choice for an airport the table has none for, and logged no errors', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    await login(page);
    // Rothera (AAXX) has no runway with both thresholds in OurAirports.
    await page.locator('input[name=airport-search]').fill('Rothera');
    await page.getByRole('button', { name: /AAXX/ }).click();
    await expect
      .poll(() => page.getByTestId('no-runways').textContent())
      .toBe('No runway of AAXX in the table');
    expect(await page.locator('select[name=runway]').count()).toBe(0);
    expect(b.errors).toEqual([]);
    expect(b.apiRejections).toEqual([]);
    await context.close();
  }, 20_000);
});
