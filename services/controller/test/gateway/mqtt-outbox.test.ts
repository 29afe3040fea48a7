import type { generator } from '@outpost/contracts';
import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeartbeatPublisher } from '../../src/domain/heartbeat-lease.js';
import { attachMqtt, mqttSinks } from '../../src/bus/mqtt-wiring.js';
import type { Database } from '../../src/db/connection.js';
import { outbox } from '../../src/db/schema.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { type Mosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { waitFor } from '../helpers/wait.js';

let tdb: TestDatabase;
let database: Database;
let broker: Mosquitto | null;
let bus: OutpostMqtt;
let t: TestApp;
let sub: mqtt.MqttClient;
const received: { topic: string; payload: string; retain: boolean }[] = [];

beforeAll(async () => {
  broker = await startMosquitto();
  if (!broker) return;
  tdb = await testDatabase();
  database = await tdb.open();
  const logger = pino({ level: 'silent' });
  bus = await createMqtt({
    url: broker.url,
    service: 'controller',
    id: 'main',
    logger,
    prefix: 'otest',
    reconnectPeriodMs: 200,
  });
  const sinks = mqttSinks(bus, { controllerId: 'main', relaynodeId: 'main' });
  t = await testApp(database, { eventSink: sinks.events });
  await attachMqtt(t.svc, bus, { sinks, heartbeat: null, controllerId: 'main', logger });
  // Like the notifier: a persistent session, so QoS 1 events published while it reconnects still reach it.
  sub = mqtt.connect(broker.url, {
    reconnectPeriod: 200,
    clientId: `outbox-test-sub-${process.pid}`,
    clean: false,
  });
  sub.on('message', (topic, payload, packet) =>
    received.push({ topic, payload: payload.toString(), retain: packet.retain }),
  );
  await new Promise<void>((resolve) => sub.once('connect', () => resolve()));
  await sub.subscribeAsync('otest/controller/main/#', { qos: 1 });
}, 60_000);

afterAll(async () => {
  sub?.end(true);
  await t?.close();
  await bus?.close();
  await database?.close();
  await tdb?.cleanup();
  await broker?.cleanup();
});

describe('events over MQTT', () => {
  it('publishes the retained generator state on every change', async (ctx) => {
    if (!broker) return ctx.skip();
    await t.request('POST', '/api/generator/arm');
    await waitFor(() =>
      received.some((m) => m.topic === 'otest/controller/main/state' && JSON.parse(m.payload).armed === true),
    );
    const late = mqtt.connect(broker.url, { clientId: 'late-sub' });
    const retained = await new Promise<string>((resolve) => {
      late.on('message', (_t, p) => resolve(p.toString()));
      late.subscribe('otest/controller/main/state');
    });
    late.end(true);
    expect(JSON.parse(retained)).toMatchObject({ armed: true, running: false, state: 'idle' });
  });

  it('broker down during a start: the started event reaches the subscriber after the broker returns', async (ctx) => {
    if (!broker) return ctx.skip();
    await broker.stop();
    await waitFor(() => !bus.connected);
    const start = await t.request('POST', '/api/generator/start', { notes: 'during outage' });
    expect(start.status).toBe(200);
    const pending = await database.db.select().from(outbox);
    expect(pending.find((e) => e.event === 'generator.started.manual')?.published_at).toBeNull();
    received.length = 0;
    await broker.start();
    await waitFor(
      () => received.some((m) => m.topic === 'otest/controller/main/event/generator.started.manual'),
      15_000,
    );
    const msg = received.find((m) => m.topic.endsWith('/event/generator.started.manual'))!;
    const event = JSON.parse(msg.payload) as generator.ControllerEvent;
    expect(event).toMatchObject({
      event: 'generator.started.manual',
      controller_id: 'main',
      data: { run_id: start.body.run_id, notes: 'during outage' },
    });
    await waitFor(() => received.some((m) => m.topic.endsWith('/event/generator_started')));
    await waitFor(() =>
      received.some((m) => m.topic.endsWith('/state') && JSON.parse(m.payload).running === true),
    );
  }, 30_000);

  it('controller/<id>/set runs automation commands through the same gates', async (ctx) => {
    if (!broker) return ctx.skip();
    await t.request('POST', '/api/generator/stop', {});
    await t.request('POST', '/api/generator/disarm');
    sub.publish('otest/controller/main/set', JSON.stringify({ command: 'start' }), { qos: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(t.svc.controller.view().running).toBe(false);
    await t.request('POST', '/api/generator/arm');
    sub.publish('otest/controller/main/set', JSON.stringify({ command: 'start', duration_minutes: 5 }), {
      qos: 1,
    });
    await waitFor(() => t.svc.controller.view().running);
    expect(t.svc.controller.view().trigger).toBe('manual');
    sub.publish('otest/controller/main/set', '{"command":"start","duration_minutes":99999}', { qos: 1 });
    sub.publish('otest/controller/main/set', JSON.stringify({ command: 'stop', reason: 'from HA' }), {
      qos: 1,
    });
    await waitFor(() => !t.svc.controller.view().running);
    const mqttStop = async () =>
      (await t.request('GET', '/api/audit?limit=10')).body.find(
        (a: { action: string }) => a.action === 'generator.stop',
      );
    await waitFor(async () => (await mqttStop())?.who === 'mqtt:automation');
    expect(await mqttStop()).toMatchObject({ who: 'mqtt:automation', from: 'otest/controller/main/set' });
  });

  it('the heartbeat carries epoch, increasing seq, issued_at, expires_at = issued_at + 3 x interval, armed and relay_on', async (ctx) => {
    if (!broker) return ctx.skip();
    const sinks = mqttSinks(bus, { controllerId: 'main', relaynodeId: 'hb1' });
    const hb = new HeartbeatPublisher({
      sink: sinks.desired,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      intervalSeconds: 10,
    });
    hb.setIntent(() => t.svc.controller.desired());
    const beats: generator.GeneratorState[] = [];
    const hbSub = mqtt.connect(broker.url, { clientId: 'hb-sub' });
    hbSub.on('message', (_topic, p) => beats.push(JSON.parse(p.toString())));
    await hbSub.subscribeAsync('otest/relaynode/hb1/desired', { qos: 1 });
    hb.start();
    await hb.commandRelay(false);
    t.clock.advance(10_000);
    t.clock.advance(10_000);
    await waitFor(() => beats.length >= 3);
    hb.stop();
    hbSub.end(true);
    const [a, b] = beats as unknown as {
      epoch: string;
      seq: number;
      issued_at: number;
      expires_at: number;
      heartbeat_interval: number;
    }[];
    expect(a!.epoch).toBe(hb.epoch);
    expect(b!.seq).toBeGreaterThan(a!.seq);
    expect(a!.expires_at - a!.issued_at).toBe(30_000);
    expect(beats[0]).toMatchObject({ heartbeat_interval: 10, armed: true, relay_on: false });
  });
});
