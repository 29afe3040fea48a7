/**
 * MQTT fuzz of the simulator's one subscription, Home Assistant's status topic, through a real
 * embedded broker with the simulator in-process (HA discovery on). Refused payloads (bytes, text,
 * any JSON, near-misses of "online") must leave GET /api/status as it was, with no unhandled
 * rejection; afterwards an "online" birth message still gets the discovery config republished.
 *
 * Counts: FUZZ_RUNS messages when set, else 3,000 (a few seconds). FUZZ_SEED replays a seed.
 */
import { type RunningBroker, startBroker } from '@outpost/broker';
import fc from 'fast-check';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientBarrier,
  fuzzMqtt,
  noDelay,
  surfaceRuns,
  until,
  watchProcess,
} from '@outpost/contracts/testing';
import { startTestSim, type TestSim } from '../helpers/sim.js';

const MESSAGES = surfaceRuns(3_000);

let broker: RunningBroker;
let sim: TestSim;
let client: mqtt.MqttClient;
let discoveries = 0;
const watch = watchProcess();

beforeAll(async () => {
  broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
  sim = await startTestSim({ MQTT_URL: broker.url, SERVICE_ID: 'fuzz1', HA_DISCOVERY_ENABLED: 'true' });
  await sim.bus?.waitConnected(5_000);
  client = noDelay(await mqtt.connectAsync(broker.url, { clientId: `simulator-fuzz-${process.pid}` }));
  client.on('message', (topic, payload) => {
    if (topic.startsWith('homeassistant/device/') && payload.length > 0) discoveries++;
  });
  await client.subscribeAsync('homeassistant/device/+/config', { qos: 1 });
  await until(() => discoveries > 0);
}, 60_000);

afterAll(async () => {
  await client?.endAsync();
  await sim?.close();
  await broker?.close();
  watch.stop();
});

describe('simulator MQTT subscription under fuzzed payloads', () => {
  it(`drops ${MESSAGES} refused payloads on homeassistant/status; nothing changes`, {
    timeout: 300_000,
  }, async () => {
    const bus = sim.bus;
    if (!bus) throw new Error('the simulator has no broker connection');
    const sent = await fuzzMqtt({
      client,
      surfaces: [{ key: 'haStatus', topic: fc.constant('homeassistant/status') }],
      messages: MESSAGES,
      barrier: await clientBarrier(bus.client, client, 'outpost/fuzz/barrier'),
      snapshot: async () => (await sim.api.get('/api/status')).body,
    });
    console.log('simulator MQTT refused payloads per topic:', Object.fromEntries(sent));
    expect(watch.errors).toEqual([]);
  });

  it('still republishes its discovery config when Home Assistant comes online', async () => {
    const before = discoveries;
    await client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await until(() => discoveries > before);
    expect((await sim.api.get('/api/status')).status).toBe(200);
    expect(watch.errors).toEqual([]);
  });
});
