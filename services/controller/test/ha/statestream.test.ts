import { makeUser, type RunningBroker, startBroker } from '@outpost/broker';
import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import mqtt, { type MqttClient } from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachConditionSources, type ConditionSources } from '../../src/bus/condition-sources.js';
import { attachMqtt, mqttSinks } from '../../src/bus/mqtt-wiring.js';
import type { Database } from '../../src/db/connection.js';
import { attachHomeAssistant } from '../../src/ha/attach.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Home Assistant's `mqtt_statestream` on the embedded broker, logged in with the automation account as
 * the README's example sets it up: it publishes `<base_topic>/<domain>/<object_id>/state` (QoS 1,
 * retained) for each included entity, beside its MQTT integration's birth message, discovery
 * subscription and generator controls. Five minutes of state publishes, one a second, run on the
 * controller's manual clock (each publish moves it one second) at full speed.
 */
const PREFIX = 'outpost';
const PW = { controller: 'ctl-pass-1', automation: 'auto-pass-1', simulator: 'sim-pass-1' };
const SOC_TOPIC = 'homeassistant/sensor/jk_bms_soc/state';
const GRID_TOPIC = 'homeassistant/binary_sensor/shore_power/state';

let broker: RunningBroker;
let tdb: TestDatabase;
let database: Database;
let t: TestApp;
let bus: OutpostMqtt;
let sources: ConditionSources;
let ha: ReturnType<typeof attachHomeAssistant>;

const overview = async () => (await t.request('GET', '/api/conditions')).body;
const source = async (name: string) =>
  ((await overview()).sources as { name: string; value: number | null; status: string }[]).find(
    (s) => s.name === name,
  );
const condition = async () => (await overview()).conditions[0] as { state: string };

/** A client shaped like Home Assistant: birth and will on homeassistant/status, discovery followed. */
async function homeAssistant(): Promise<{ client: MqttClient; closes: number; received: string[] }> {
  const client = await mqtt.connectAsync(broker.url, {
    username: 'automation',
    password: PW.automation,
    clientId: `homeassistant-${process.pid}`,
    protocolVersion: 4,
    reconnectPeriod: 0,
    will: { topic: 'homeassistant/status', payload: Buffer.from('offline'), qos: 0, retain: false },
  });
  const ha = { client, closes: 0, received: [] as string[] };
  client.on('close', () => ha.closes++);
  client.on('message', (topic, payload) => ha.received.push(`${topic} ${payload.toString()}`));
  await client.subscribeAsync(['homeassistant/#', `${PREFIX}/controller/main/state`], { qos: 1 });
  await client.publishAsync('homeassistant/status', 'online', { qos: 0 });
  return ha;
}

beforeAll(async () => {
  broker = await startBroker({
    port: 0,
    wsPort: false,
    host: '127.0.0.1',
    prefix: PREFIX,
    users: {
      users: [
        makeUser('controller', 'controller', 'main', PW.controller),
        makeUser('automation', 'automation', '*', PW.automation),
        makeUser('simulator', 'simulator', 'main', PW.simulator),
      ],
    },
  });
  tdb = await testDatabase();
  database = await tdb.open();
  const logger = pino({ level: 'silent' });
  t = await testApp(database, { config: { topicPrefix: PREFIX } });
  bus = await createMqtt({
    url: broker.url,
    username: 'controller',
    password: PW.controller,
    service: 'controller',
    id: 'main',
    logger,
    prefix: PREFIX,
  });
  const sinks = mqttSinks(bus, { controllerId: 'main', relaynodeId: 'main' });
  await attachMqtt(t.svc, bus, { sinks, heartbeat: null, controllerId: 'main', logger });
  sources = await attachConditionSources(t.svc, {
    site: bus.client,
    clock: t.clock,
    logger,
    controllerId: 'main',
    prefix: PREFIX,
  });
  ha = attachHomeAssistant(t.svc, bus, {
    enabled: true,
    haPrefix: 'homeassistant',
    controllerId: 'main',
    relaynodeId: 'main',
    hoaEnabled: true,
    version: '0.0.0-test',
    clock: t.clock,
    logger,
  });
  await t.request('POST', '/api/generator/arm');
}, 60_000);

afterAll(async () => {
  await sources?.close();
  ha?.close();
  await t?.close();
  await bus?.close();
  await database?.close();
  await tdb?.cleanup();
  await broker?.close();
});

describe('Home Assistant statestream on the embedded broker', () => {
  it('stays connected through 5 minutes of state publishes and drives the soc condition to a start', async () => {
    const res = await t.request('PUT', '/api/conditions/config', {
      sources: {
        soc: { type: 'ha_statestream', entity_id: 'sensor.jk_bms_soc', stale_after_seconds: 600 },
        grid: { type: 'ha_statestream', entity_id: 'binary_sensor.shore_power' },
      },
      conditions: { soc: { enabled: true, start_value: 25, start_delay_seconds: 60, stop_value: 90 } },
      keep_off_while_grid: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const hass = await homeAssistant();
    // Discovery reaches it: the generator's controls are there.
    await waitFor(() =>
      hass.received.some((m) => m.startsWith('homeassistant/device/outpost_controller_main/config')),
    );

    await hass.client.publishAsync(GRID_TOPIC, 'off', { qos: 1, retain: true });
    await waitFor(async () => (await source('grid'))?.value === 0);
    const states: string[] = [];
    // 300 publishes, one per simulated second: the battery falls from 40 % by 0.1 % a second.
    for (let i = 0; i < 300; i++) {
      const soc = Math.round((40 - i * 0.1) * 10) / 10;
      await hass.client.publishAsync(SOC_TOPIC, soc.toFixed(1), { qos: 1, retain: true });
      await waitFor(async () => (await source('soc'))?.value === soc);
      t.clock.advance(1000);
      const state = (await condition()).state;
      if (states.at(-1) !== state) states.push(state);
    }
    expect(hass.closes).toBe(0);
    expect(hass.client.connected).toBe(true);
    // Under 25 % at 150 s, held for the 60 s delay: active, and the run it started.
    expect(states).toEqual(['idle', 'start_pending', 'active']);
    await waitFor(async () => (await t.request('GET', '/api/generator/state')).body.trigger === 'soc');
    // Home Assistant still follows the generator on the same connection.
    await waitFor(() =>
      hass.received.some(
        (m) => m.startsWith(`${PREFIX}/controller/main/state`) && m.includes('"trigger":"soc"'),
      ),
    );
    await hass.client.endAsync();
  }, 120_000);

  it('grants the account exactly <base>/<domain>/<object_id>/state: anything else still disconnects it', async () => {
    for (const topic of [
      // publish_attributes / publish_timestamps
      'homeassistant/sensor/jk_bms_soc/unit_of_measurement',
      'homeassistant/sensor/jk_bms_soc/last_updated',
      'homeassistant/sensor/state',
      `${PREFIX}/controller/main/state`,
    ]) {
      const hass = await homeAssistant();
      const closed = new Promise<void>((r) => hass.client.once('close', () => r()));
      hass.client.publish(topic, '1', { qos: 1 });
      await closed;
      expect(hass.closes, topic).toBe(1);
      hass.client.end(true);
    }
  });

  it("a service's account cannot feed a condition: its topic is refused as a source", async () => {
    const refused = await t.request('PUT', '/api/conditions/config', {
      sources: { ac_load: { type: 'mqtt', topic: `${PREFIX}/simulator/main/load` } },
      conditions: { ac_load: { enabled: true, start_value: 4000, stop_value: 1500 } },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain('sources.ac_load.topic');
    const sim = await mqtt.connectAsync(broker.url, {
      username: 'simulator',
      password: PW.simulator,
      reconnectPeriod: 0,
    });
    // The simulator may publish under its own namespace; nothing reads it as a load.
    await sim.publishAsync(`${PREFIX}/simulator/main/load`, '9999', { qos: 1 });
    await sim.endAsync();
    expect((await overview()).sources.map((s: { name: string }) => s.name)).not.toContain('ac_load');
    expect((await overview()).conditions.map((c: { name: string }) => c.name)).not.toContain('ac_load');
  });
});
