// The fleet map's view: it opens on the whole fleet (every located simulator and site in view), and once
// the user has moved it, it stays where the user put it as simulators come and go.
import { fileURLToPath } from 'node:url';
import { type RunningBroker, startBroker } from '@outpost/broker';
import {
  browserTestsEnabled,
  DESKTOP,
  type E2EBrowser,
  freePort,
  openBrowser,
  type ServiceProcess,
  startService,
} from '@outpost/ui/testing';
import mqtt from 'mqtt';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DASHBOARD_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const P = 'outpost';

/** Two simulators on the west coast (Seattle, San Francisco) and one in Texas; a site at Boise. */
const POSITIONS: Record<string, { lat: number; lon: number }> = {
  'sim-alpha': { lat: 37.6135, lon: -122.357 },
  'sim-bravo': { lat: 47.44794, lon: -122.31028 },
  'sim-charlie': { lat: 32.897, lon: -97.038 },
};
const SITE: [string, number, number] = ['boise', 43.5644, -116.2228];

// Runs in the page; typed structurally, as the tests are compiled without the DOM library.
type Rect = { left: number; top: number; right: number; bottom: number };
type HostEl = {
  clientWidth: number;
  clientHeight: number;
  getBoundingClientRect(): Rect;
  querySelectorAll(selector: string): ArrayLike<{ getBoundingClientRect(): Rect }>;
  maplibre: {
    project(p: [number, number]): { x: number; y: number };
    getCenter(): { lng: number; lat: number };
    isMoving(): boolean;
  };
};

/**
 * Where each simulator of `POSITIONS` and the site are drawn (pixels from the map's top left), the map's size
 * and centre, and the boxes of the controls over it (the zoom buttons, the attribution).
 */
function drawn(map: Locator) {
  return map.evaluate(
    (
      el: object,
      [positions, site]: [Record<string, { lat: number; lon: number }>, [string, number, number]],
    ) => {
      const host = el as HostEl;
      const at = (lat: number, lon: number) => host.maplibre.project([lon, lat]);
      const origin = host.getBoundingClientRect();
      const controls = Array.from(host.querySelectorAll('.maplibregl-ctrl'), (e) => {
        const r = e.getBoundingClientRect();
        return {
          left: r.left - origin.left,
          top: r.top - origin.top,
          right: r.right - origin.left,
          bottom: r.bottom - origin.top,
        };
      });
      const c = host.maplibre.getCenter();
      const points: Record<string, { x: number; y: number }> = { [site[0]]: at(site[1], site[2]) };
      for (const [id, p] of Object.entries(positions)) points[id] = at(p.lat, p.lon);
      return {
        width: host.clientWidth,
        height: host.clientHeight,
        center: [c.lng, c.lat] as [number, number],
        controls,
        points,
      };
    },
    [POSITIONS, SITE] as [Record<string, { lat: number; lon: number }>, [string, number, number]],
  );
}

/** The named points not seen on the map: outside it, within 20 px of an edge, or under a control. */
async function unseen(map: Locator, names: string[]): Promise<string[]> {
  const v = await drawn(map);
  return names
    .filter((n) => !inside(v.points[n]!, v.width, v.height, 20, v.controls))
    .map(
      (n) => `${n} at ${v.points[n]!.x.toFixed(0)},${v.points[n]!.y.toFixed(0)} of ${v.width}x${v.height}`,
    );
}

/** Whether a point is seen: inside the canvas, at least `margin` pixels from every edge and from every control. */
const inside = (p: { x: number; y: number }, w: number, h: number, margin: number, controls: Rect[]) =>
  p.x >= margin &&
  p.y >= margin &&
  p.x <= w - margin &&
  p.y <= h - margin &&
  !controls.some((c) => p.x > c.left - 8 && p.x < c.right + 8 && p.y > c.top - 8 && p.y < c.bottom + 8);

describe.skipIf(!browserTestsEnabled())('fleet map view in Chromium', () => {
  let broker: RunningBroker;
  let dash: ServiceProcess;
  let b: E2EBrowser;
  let client: mqtt.MqttClient;
  let beat: ReturnType<typeof setInterval> | undefined;
  const reporting = new Set(['sim-alpha', 'sim-bravo']);

  beforeAll(async () => {
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
    const port = await freePort();
    dash = await startService(
      DASHBOARD_MAIN,
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        MQTT_URL: broker.url,
        EXPECTED_SIMULATORS: Object.keys(POSITIONS).join(','),
        EXPECTED_SITES: SITE[0],
        SITE_LOCATIONS: `${SITE[0]}:${SITE[1]}:${SITE[2]}`,
      },
      port,
    );
    client = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
    for (const id of Object.keys(POSITIONS))
      await client.publishAsync(`${P}/simulator/${id}/availability`, 'online', { retain: true, qos: 1 });
    const beatAll = () => {
      for (const id of reporting) {
        const at = {
          ...POSITIONS[id],
          altitude_ft: 1500,
          speed_kts: 120,
          heading: 90,
          timestamp_ms: Date.now(),
        };
        client.publish(`${P}/simulator/${id}/position`, JSON.stringify(at));
      }
    };
    beatAll();
    beat = setInterval(beatAll, 500);
    b = await openBrowser();
  }, 40_000);

  afterAll(async () => {
    clearInterval(beat);
    await b?.close();
    await client?.endAsync();
    await dash?.stop();
    await broker?.close();
  });

  it('opens on every simulator and site, then keeps the view the user pans to as the fleet changes', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    await page.goto(dash.url);
    const map = page.getByTestId('fleet-map');
    await expect.poll(() => map.getAttribute('data-points'), { timeout: 10_000 }).toBe('2');
    await expect.poll(() => map.getAttribute('data-land'), { timeout: 10_000 }).toBe('yes');
    // The whole fleet in view, clear of the edges and of the zoom buttons and the attribution over the map.
    expect(await unseen(map, ['sim-alpha', 'sim-bravo', SITE[0]])).toEqual([]);
    const first = (await drawn(map)).center;

    // The user drags the map; then a third simulator reports from far away: the view stays the user's.
    const box = (await map.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 60, box.y + box.height / 2 - 40, { steps: 8 });
    await page.mouse.up();
    // The drag's glide ends before the view is read.
    const moving = () => map.evaluate((el: object) => (el as HostEl).maplibre.isMoving());
    await expect.poll(moving, { timeout: 5000 }).toBe(false);
    const panned = (await drawn(map)).center;
    expect(panned).not.toEqual(first);
    reporting.add('sim-charlie');
    await expect.poll(() => map.getAttribute('data-points'), { timeout: 10_000 }).toBe('3');
    // Two more fleet states (one a second) redraw the map; the centre is where the user left it.
    for (let i = 0; i < 2; i++) {
      const before = await map.getAttribute('data-frame-ms');
      await expect.poll(() => map.getAttribute('data-frame-ms'), { timeout: 5000 }).not.toBe(before);
    }
    expect((await drawn(map)).center).toEqual(panned);
    await context.close();
  }, 60_000);

  it('opens on the whole fleet as it is now in a new visit, the simulator added since included', async () => {
    reporting.add('sim-charlie');
    const { context, page } = await b.newSession(DESKTOP);
    await page.goto(dash.url);
    const map = page.getByTestId('fleet-map');
    await expect.poll(() => map.getAttribute('data-points'), { timeout: 10_000 }).toBe('3');
    expect(await unseen(map, [...Object.keys(POSITIONS), SITE[0]])).toEqual([]);
    await context.close();
  }, 60_000);
});
