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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawn, type HostEl, unseen } from './map-view.js';

const DASHBOARD_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const P = 'outpost';

/** Two simulators on the west coast (Seattle, San Francisco) and one in Texas; a site at Boise. */
const POSITIONS: Record<string, { lat: number; lon: number }> = {
  'sim-alpha': { lat: 37.6135, lon: -122.357 },
  'sim-bravo': { lat: 47.44794, lon: -122.31028 },
  'sim-charlie': { lat: 32.897, lon: -97.038 },
};
const SITE: [string, number, number] = ['boise', 43.5644, -116.2228];

/** Everything the map should show: the simulators and the site. */
const ALL = { ...POSITIONS, [SITE[0]]: { lat: SITE[1], lon: SITE[2] } };

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
    expect(await unseen(map, ALL, ['sim-alpha', 'sim-bravo', SITE[0]])).toEqual([]);
    const first = (await drawn(map, ALL)).center;

    // The user drags the map; then a third simulator reports from far away: the view stays the user's.
    const box = (await map.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 60, box.y + box.height / 2 - 40, { steps: 8 });
    await page.mouse.up();
    // The drag's glide ends before the view is read.
    const moving = () => map.evaluate((el: object) => (el as HostEl).maplibre.isMoving());
    await expect.poll(moving, { timeout: 5000 }).toBe(false);
    const panned = (await drawn(map, ALL)).center;
    expect(panned).not.toEqual(first);
    reporting.add('sim-charlie');
    await expect.poll(() => map.getAttribute('data-points'), { timeout: 10_000 }).toBe('3');
    // Two more fleet states (one a second) redraw the map; the centre is where the user left it.
    for (let i = 0; i < 2; i++) {
      const before = await map.getAttribute('data-frame-ms');
      await expect.poll(() => map.getAttribute('data-frame-ms'), { timeout: 5000 }).not.toBe(before);
    }
    expect((await drawn(map, ALL)).center).toEqual(panned);
    await context.close();
  }, 60_000);

  it('opens on the whole fleet as it is now in a new visit, the simulator added since included', async () => {
    reporting.add('sim-charlie');
    const { context, page } = await b.newSession(DESKTOP);
    await page.goto(dash.url);
    const map = page.getByTestId('fleet-map');
    await expect.poll(() => map.getAttribute('data-points'), { timeout: 10_000 }).toBe('3');
    expect(await unseen(map, ALL, Object.keys(ALL))).toEqual([]);
    await context.close();
  }, 60_000);
});
