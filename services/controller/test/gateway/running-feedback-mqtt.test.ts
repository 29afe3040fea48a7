import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachMqtt, mqttSinks } from '../../src/bus/mqtt-wiring.js';
import type { Database } from '../../src/db/connection.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { type Mosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { waitFor } from '../helpers/wait.js';

const TOPIC = 'otest/controller/main/running_feedback';
let tdb: TestDatabase;
let database: Database;
let broker: Mosquitto | null;
let bus: OutpostMqtt;
let t: TestApp;
let plug: mqtt.MqttClient;

const history = async () =>
  (await t.request('GET', '/api/generator/history')).body as Record<string, unknown>[];

beforeAll(async () => {
  broker = await startMosquitto();
  if (!broker) return;
  tdb = await testDatabase();
  database = await tdb.open();
  t = await testApp(database);
  await t.request('PUT', '/api/health/settings', { running_feedback_source: 'mqtt' });
  // The smart plug publishes before the controller subscribes: the retained reading must still count.
  plug = mqtt.connect(broker.url, { clientId: `plug-${process.pid}` });
  await new Promise<void>((resolve) => plug.once('connect', () => resolve()));
  await plug.publishAsync(TOPIC, 'ON', { qos: 1, retain: true });
  const logger = pino({ level: 'silent' });
  bus = await createMqtt({ url: broker.url, service: 'controller', id: 'main', logger, prefix: 'otest' });
  const sinks = mqttSinks(bus, { controllerId: 'main', relaynodeId: 'main' });
  await attachMqtt(t.svc, bus, { sinks, heartbeat: null, controllerId: 'main', logger });
}, 60_000);

afterAll(async () => {
  plug?.end(true);
  await t?.close();
  await bus?.close();
  await database?.close();
  await tdb?.cleanup();
  await broker?.cleanup();
});

describe('running feedback over MQTT (retained controller/<id>/running_feedback)', () => {
  it('a retained ON with no command records an external run and sends no relay command', async (ctx) => {
    if (!broker) return ctx.skip();
    await waitFor(async () => (await history()).length === 1);
    expect((await history())[0]).toMatchObject({ trigger_type: 'external', stop_time: null });
    expect(t.relay.commands.includes(true)).toBe(false);
    expect((await t.request('GET', '/api/health')).body).toMatchObject({
      running_feedback: true,
      external_run_active: true,
    });
  });

  it('JSON {"running": false} ends it; a malformed payload is dropped and changes nothing', async (ctx) => {
    if (!broker) return ctx.skip();
    await plug.publishAsync(TOPIC, 'maybe', { qos: 1, retain: true });
    await plug.publishAsync(TOPIC, JSON.stringify({ running: false }), { qos: 1, retain: true });
    await waitFor(async () => (await history())[0]?.stop_time !== null);
    expect((await t.request('GET', '/api/health')).body).toMatchObject({
      running_feedback: false,
      external_run_active: false,
    });
    expect(t.relay.commands.includes(true)).toBe(false);
  });

  it("Home Assistant's Service done button marks every due item done", async (ctx) => {
    if (!broker) return ctx.skip();
    const created = await t.request('POST', '/api/maintenance/items', { name: 'Filter', interval_hours: 50 });
    const id = created.body.id as number;
    // Due by the engine hours, set to the generator's own meter.
    expect((await t.request('PUT', '/api/health/hour-meter', { hours: 60 })).status).toBe(200);
    expect((await t.request('GET', `/api/maintenance/items/${id}`)).body.status).toBe('due');
    await plug.publishAsync('otest/controller/main/set', JSON.stringify({ command: 'maintenance_done' }), {
      qos: 1,
    });
    await waitFor(async () => (await t.request('GET', `/api/maintenance/items/${id}`)).body.status === 'ok');
    const item = (await t.request('GET', `/api/maintenance/items/${id}`)).body;
    expect(item.history[0]).toMatchObject({ who: 'mqtt:automation' });
  });

  it('confirms a commanded start', async (ctx) => {
    if (!broker) return ctx.skip();
    await t.request('POST', '/api/generator/arm');
    expect((await t.request('POST', '/api/generator/start', {})).status).toBe(200);
    await plug.publishAsync(TOPIC, 'on', { qos: 1, retain: true });
    await waitFor(async () => (await t.request('GET', '/api/health')).body.run_confirmed_at !== null);
    expect((await history())[0]).toMatchObject({ trigger_type: 'manual', stop_time: null });
  });
});
