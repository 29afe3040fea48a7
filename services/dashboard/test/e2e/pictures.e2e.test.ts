// The fleet dashboard's README pictures (docs/screenshots/dashboard-*.png, `npm run screenshots`): one
// generator site and three simulators (two flying, one stopped), fed over the real broker with the
// messages those services publish, with fixed values so each take shows the same figures.
import { fileURLToPath } from 'node:url';
import { type RunningBroker, startBroker } from '@outpost/broker';
import {
  browserTestsEnabled,
  type E2EBrowser,
  freePort,
  openBrowser,
  type ServiceProcess,
  startService,
} from '@outpost/ui/testing';
import { PICTURE_DESKTOP, PICTURE_PHONE, PICTURE_TIME, picture } from '@outpost/ui/testing/pictures';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unseen } from './map-view.js';

const DASHBOARD_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const P = 'outpost';

const SIMULATORS: Record<string, Record<string, unknown>> = {
  'sim-alpha': {
    sim_reachable: true,
    receiving_udp: false,
    uptime_seconds: 7260,
    mode: 'standalone',
    running: true,
    lat: 37.6135,
    lon: -122.357,
    altitude_ft: 13,
    simulator_ip: '192.168.1.21',
  },
  'sim-bravo': {
    sim_reachable: true,
    receiving_udp: true,
    uptime_seconds: 3725,
    mode: 'rebroadcaster',
    running: true,
    lat: 47.44794,
    lon: -122.31028,
    altitude_ft: 1500,
    last_input_age_seconds: 0.4,
    simulator_ip: '192.168.1.22',
  },
  'sim-charlie': {
    sim_reachable: true,
    receiving_udp: false,
    uptime_seconds: 540,
    mode: null,
    running: false,
    simulator_ip: '192.168.1.23',
  },
};

/** The two flying simulators' position reports: where they are, how fast and which way. */
const POSITIONS: Record<string, { lat: number; lon: number } & Record<string, unknown>> = {
  'sim-alpha': {
    lat: 37.6135,
    lon: -122.357,
    altitude_ft: 13,
    speed_kts: 0,
    heading: 298,
    airport_icao: 'KSFO',
  },
  'sim-bravo': { lat: 47.44794, lon: -122.31028, altitude_ft: 1500, speed_kts: 120, heading: 90 },
};

const SITE = {
  running: false,
  state: 'idle',
  current_run_id: null,
  start_time: null,
  runtime_seconds: 0,
  trigger: null,
  armed: true,
  slave_connected: true,
  slave_physical_safety_engaged: false,
  relay_node_relay_on: false,
  failsafe_triggered: false,
  health_alarm: null,
  hoa_position: 'auto',
};

describe.skipIf(!browserTestsEnabled())('fleet dashboard pictures', () => {
  let broker: RunningBroker;
  let dash: ServiceProcess;
  let b: E2EBrowser;
  let client: mqtt.MqttClient;
  let beat: ReturnType<typeof setInterval> | undefined;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
    const port = await freePort();
    dash = await startService(
      DASHBOARD_MAIN,
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        MQTT_URL: broker.url,
        EXPECTED_SIMULATORS: Object.keys(SIMULATORS).join(','),
        EXPECTED_SITES: 'gen-1:relay-1',
      },
      port,
    );
    client = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
    for (const id of Object.keys(SIMULATORS))
      await client.publishAsync(`${P}/simulator/${id}/availability`, 'online', { retain: true, qos: 1 });
    await client.publishAsync(`${P}/controller/gen-1/availability`, 'online', { retain: true, qos: 1 });
    await client.publishAsync(`${P}/relaynode/relay-1/availability`, 'online', { retain: true, qos: 1 });
    await client.publishAsync(`${P}/controller/gen-1/state`, JSON.stringify(SITE), { retain: true, qos: 1 });
    const beatAll = () => {
      for (const [id, hb] of Object.entries(SIMULATORS))
        client.publish(`${P}/simulator/${id}/heartbeat`, JSON.stringify({ ...hb, timestamp_ms: Date.now() }));
      for (const [id, at] of Object.entries(POSITIONS))
        client.publish(`${P}/simulator/${id}/position`, JSON.stringify({ ...at, timestamp_ms: Date.now() }));
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

  it('one site and three simulators, at desktop and phone width', async () => {
    for (const [name, viewport, scheme] of [
      ['dashboard-desktop', PICTURE_DESKTOP, 'light'],
      ['dashboard-phone', PICTURE_PHONE, 'dark'],
    ] as const) {
      const { context, page } = await b.newSession(viewport, scheme);
      await page.clock.setFixedTime(PICTURE_TIME);
      await page.goto(dash.url);
      const cell = (id: string, col: string) =>
        page.locator(`tr[data-row="${id}"] td[data-col="${col}"]`).textContent();
      await expect.poll(() => cell('sim-alpha', 'online'), { timeout: 8000 }).toBe('online');
      await expect.poll(() => cell('sim-bravo', 'online'), { timeout: 8000 }).toBe('online');
      await expect.poll(() => cell('sim-charlie', 'online'), { timeout: 8000 }).toBe('stopped');
      await expect.poll(() => cell('gen-1', 'armed'), { timeout: 8000 }).toBe('yes');
      await expect.poll(() => cell('sim-bravo', 'kts'), { timeout: 8000 }).toBe('120');
      await expect.poll(() => page.getByTestId('conn').textContent()).toBe('live');
      await page.waitForLoadState('networkidle');
      // The map shows both located simulators, neither under its zoom buttons or attribution.
      const map = page.getByTestId('fleet-map');
      await expect.poll(() => map.getAttribute('data-points'), { timeout: 8000 }).toBe('2');
      await expect.poll(() => unseen(map, POSITIONS, Object.keys(POSITIONS)), { timeout: 5000 }).toEqual([]);
      await picture(page, name);
      await context.close();
    }
  }, 60_000);
});
