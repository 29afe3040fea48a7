import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningBroker, startBroker } from '@outpost/broker';
import {
  ARTIFACTS,
  browserTestsEnabled,
  DESKTOP,
  type E2EBrowser,
  freePort,
  openBrowser,
  renderedValues,
  type ServiceProcess,
  startService,
} from '@outpost/ui/testing';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DASHBOARD_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const COUNT = 5000;

describe.skipIf(!browserTestsEnabled())('fleet map in Chromium', () => {
  let broker: RunningBroker;
  let dash: ServiceProcess;
  let b: E2EBrowser;
  let client: mqtt.MqttClient;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
    const port = await freePort();
    dash = await startService(
      DASHBOARD_MAIN,
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        MQTT_URL: broker.url,
        EXPECTED_SITES: 'main',
        SITE_LOCATIONS: 'main:37.6213:-122.379,north:45.59:-122.6',
      },
      port,
    );
    client = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
    // Site main's controller is up; north's never reported, so it is drawn as needing a look.
    await client.publishAsync('outpost/controller/main/availability', 'online', { retain: true, qos: 1 });
    // 5,000 simulators spread over the western United States, every tenth one offline.
    for (let i = 0; i < COUNT; i++) {
      const id = `sim-${String(i).padStart(4, '0')}`;
      await client.publishAsync(`outpost/simulator/${id}/availability`, i % 10 === 0 ? 'offline' : 'online', {
        retain: true,
        qos: 1,
      });
      const position = {
        lat: 32 + ((i * 7919) % 1500) / 100,
        lon: -124 + ((i * 104_729) % 1700) / 100,
        altitude_ft: 3000,
        speed_kts: 110,
        heading: 90,
        timestamp_ms: Date.now(),
      };
      // At QoS 1: a burst of 5,000 QoS 0 messages on a loaded machine may lose a few on the way, and the
      // test is about drawing every one that arrived.
      await client.publishAsync(`outpost/simulator/${id}/position`, JSON.stringify(position), { qos: 1 });
    }
    b = await openBrowser();
  }, 120_000);

  afterAll(async () => {
    await b?.close();
    await client?.endAsync();
    await dash?.stop();
    await broker?.close();
  });

  it('draws the basemap and 5,000 simulators in under 200 ms a frame, asking nothing beyond loopback', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(dash.url);
    const map = page.getByTestId('fleet-map');
    await expect.poll(() => map.getAttribute('data-points'), { timeout: 30_000 }).toBe(String(COUNT));
    await expect.poll(() => map.getAttribute('data-land'), { timeout: 10_000 }).toBe('yes');
    await expect.poll(() => map.getAttribute('data-sites'), { timeout: 10_000 }).toBe('main:ok north:alert');
    // Several frames: the fleet state arrives once a second and each one redraws the map.
    const frames: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = await map.getAttribute('data-frame-ms');
      await expect.poll(() => map.getAttribute('data-frame-ms'), { timeout: 5000 }).not.toBe(before);
      frames.push(Number(await map.getAttribute('data-frame-ms')));
    }
    for (const ms of frames) expect(ms).toBeLessThan(200);
    // What the renderer drew: the simulators in their status colours (every tenth is offline, red; the others
    // report positions but no running heartbeat, "online, idle", neutral), and water.
    const drawn = { timeout: 30_000 };
    await expect.poll(() => renderedValues(map, 'fleet-sims', 'tone'), drawn).toEqual(['bad', 'neutral']);
    await expect
      .poll(async () => (await renderedValues(map, 'fleet-sims')).length, drawn)
      .toBeGreaterThan(COUNT * 0.9);
    await expect
      .poll(async () => (await renderedValues(map, 'water-world', 'x')).length, drawn)
      .toBeGreaterThan(0);
    // Each site is a labelled square on top.
    expect(await page.locator('.geo-site').allTextContents()).toEqual(
      expect.arrayContaining(['main', 'north']),
    );
    console.log(
      `fleet map frames with ${COUNT} simulators: ${frames.join(', ')} ms; ` +
        `new data to picture: ${await map.getAttribute('data-update-ms')} ms`,
    );
    mkdirSync(ARTIFACTS, { recursive: true });
    await map.screenshot({ path: join(ARTIFACTS, 'dashboard-fleet-map.png') });
    const origin = new URL(dash.url).origin;
    expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'))).toEqual([]);
    await context.close();
  }, 90_000);
});
