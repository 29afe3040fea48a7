/**
 * MQTT fuzz of every topic the dashboard subscribes to (simulator heartbeat, position and
 * availability; controller and relay node state and availability; any id level) through a real
 * embedded broker with the dashboard in-process on a manual clock. Refused payloads (bytes, text,
 * any JSON, contract-shaped JSON with one field broken) must leave the fleet and the generator sites
 * as they were (no phantom entry for a fuzzed id), with no unhandled rejection; afterwards a valid
 * heartbeat still shows up in the fleet.
 *
 * Counts: FUZZ_RUNS messages when set, else 5,000 (a few seconds). FUZZ_SEED replays a seed.
 */
import { type RunningBroker, startBroker } from '@outpost/broker';
import type { TopicKey } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime';
import fc from 'fast-check';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientBarrier,
  fuzzMqtt,
  level,
  noDelay,
  surfaceRuns,
  until,
  watchProcess,
} from '@outpost/contracts/testing';
import { type Dashboard, startDashboard } from '../../src/app.js';
import { silentLogger, testConfig } from '../helpers.js';

const MESSAGES = surfaceRuns(5_000);
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);

let broker: RunningBroker;
let dash: Dashboard;
let client: mqtt.MqttClient;
const watch = watchProcess();

/** `<svc>/<kind>` → contract key, as the dashboard routes them. */
const ROUTES: Array<[string, string, TopicKey]> = [
  ['simulator', 'heartbeat', 'simulatorHeartbeat'],
  ['simulator', 'position', 'simulatorPosition'],
  ['simulator', 'availability', 'availability'],
  ['controller', 'state', 'controllerState'],
  ['controller', 'availability', 'availability'],
  ['relaynode', 'state', 'relaynodeState'],
  ['relaynode', 'availability', 'availability'],
];

const view = () => ({ fleet: dash.fleet.json(NOW), sites: dash.sites.list() });

beforeAll(async () => {
  broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
  dash = await startDashboard(testConfig({ mqttUrl: broker.url, expectedSimulators: ['alpha'] }), {
    logger: silentLogger,
    clock: new ManualClock(NOW),
  });
  await dash.bus.waitConnected(5_000);
  client = noDelay(await mqtt.connectAsync(broker.url, { clientId: `dashboard-fuzz-${process.pid}` }));
}, 60_000);

afterAll(async () => {
  await client?.endAsync();
  await dash?.close();
  await broker?.close();
  watch.stop();
});

describe('dashboard MQTT subscriptions under fuzzed payloads', () => {
  it(`drops ${MESSAGES} refused payloads on every subscribed topic; the fleet stays as it was`, {
    timeout: 300_000,
  }, async () => {
    const barrier = await clientBarrier(dash.bus.client, client, 'outpost/fuzz/barrier');
    const sent = await fuzzMqtt({
      client,
      surfaces: ROUTES.map(([svc, kind, key]) => ({
        key,
        topic: fc.oneof(fc.constantFrom('alpha', 'main'), level).map((id) => `outpost/${svc}/${id}/${kind}`),
      })),
      messages: MESSAGES,
      barrier,
      snapshot: async () => view(),
    });
    console.log('dashboard MQTT refused payloads per contract:', Object.fromEntries(sent));
    expect(watch.errors).toEqual([]);
  });

  it('still follows a valid heartbeat afterwards', async () => {
    const hb = {
      sim_reachable: true,
      receiving_udp: false,
      uptime_seconds: 5,
      mode: 'standalone',
      running: true,
      lat: 30.27,
      lon: -97.74,
      timestamp_ms: NOW,
    };
    await client.publishAsync('outpost/simulator/alive/heartbeat', JSON.stringify(hb), { qos: 0 });
    await until(() => dash.fleet.get('alive', NOW)?.online);
    expect(watch.errors).toEqual([]);
  });
});
