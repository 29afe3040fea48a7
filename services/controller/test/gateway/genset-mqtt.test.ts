import type { genset } from '@outpost/contracts';
import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attachGensetLink } from '../../src/bus/genset-link.js';
import { attachMqtt, mqttSinks } from '../../src/bus/mqtt-wiring.js';
import type { Database } from '../../src/db/connection.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { gensetReport, staleGensetReport } from '../helpers/genset-fixtures.js';
import { type Mosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

const GENSET = 'otest/relaynode/main/genset';
let tdb: TestDatabase;
let database: Database;
let broker: Mosquitto | null;
let bus: OutpostMqtt | null = null;
let t: TestApp | null = null;
let node: mqtt.MqttClient;
let seen: mqtt.MqttClient | null = null;
let n = 0;
let rx: Awaited<ReturnType<typeof startReceiver>>;

/** A controller on the real database, following the relay node's genset topic on the real broker. */
async function controller(): Promise<TestApp> {
  if (!broker) throw new Error('no broker');
  const app = await testApp(database);
  const logger = pino({ level: 'silent' });
  n += 1;
  bus = await createMqtt({ url: broker.url, service: 'controller', id: `main${n}`, logger, prefix: 'otest' });
  const sinks = mqttSinks(bus, { controllerId: 'main', relaynodeId: 'main' });
  await attachMqtt(app.svc, bus, { sinks, heartbeat: null, controllerId: 'main', logger });
  await attachGensetLink({ bus, relaynodeId: 'main', controller: app.svc.controller, logger });
  t = app;
  return app;
}

const publish = (state: genset.GensetState) =>
  node.publishAsync(GENSET, JSON.stringify(state), { qos: 1, retain: true });
const history = async (app: TestApp) =>
  (await app.request('GET', '/api/generator/history')).body as Record<string, unknown>[];
const health = async (app: TestApp) => (await app.request('GET', '/api/health')).body;

beforeAll(async () => {
  broker = await startMosquitto();
  if (!broker) return;
  tdb = await testDatabase();
  database = await tdb.open();
  rx = await startReceiver();
  node = mqtt.connect(broker.url, { clientId: `node-${process.pid}` });
  await new Promise<void>((resolve) => node.once('connect', () => resolve()));
}, 60_000);

afterEach(async () => {
  seen?.end(true);
  seen = null;
  await t?.close();
  await bus?.close();
  t = null;
  bus = null;
  if (rx) rx.requests.length = 0;
  // No retained report carries over into the next test.
  await node?.publishAsync(GENSET, '', { qos: 1, retain: true });
});

afterAll(async () => {
  node?.end(true);
  await rx?.close();
  await database?.close();
  await tdb?.cleanup();
  await broker?.cleanup();
});

describe("the generator's own controller in the state (relaynode/<id>/genset)", () => {
  it('GET /api/genset, the REST state and the MQTT state carry the newest report with its stale flag', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await controller();
    expect((await app.request('GET', '/api/genset')).status).toBe(404);
    expect((await app.request('GET', '/api/generator/state')).body.genset).toBeNull();
    await publish(gensetReport({ mode: 'manual' }));
    await waitFor(async () => (await app.request('GET', '/api/genset')).status === 200);
    expect((await app.request('GET', '/api/genset')).body).toMatchObject({
      stale: false,
      mode: 'manual',
      engine_state: 'stopped',
      instruments: { fuel_level_percent: 80, battery_voltage_v: 12.8 },
    });
    // Without a token the route is refused like every other.
    expect((await app.request('GET', '/api/genset', undefined, { authorization: '' })).status).toBe(401);

    await publish(staleGensetReport());
    await waitFor(async () => (await app.request('GET', '/api/generator/state')).body.genset?.stale === true);
    expect((await app.request('GET', '/api/generator/state')).body.genset).toMatchObject({
      stale: true,
      running: null,
      mode: null,
      warnings: ['genset_unreachable'],
    });
    const states: Record<string, unknown>[] = [];
    const watcher = mqtt.connect(broker.url, { clientId: `watch-${process.pid}` });
    seen = watcher;
    watcher.on('message', (_topic, payload) => states.push(JSON.parse(payload.toString())));
    await watcher.subscribeAsync('otest/controller/main/state', { qos: 1 });
    await waitFor(() => states.some((s) => (s.genset as { stale?: boolean } | null)?.stale === true));
  });

  it('a report that breaks the contract is dropped', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await controller();
    await publish(gensetReport({ fault: null }));
    await waitFor(async () => (await app.request('GET', '/api/genset')).status === 200);
    // A stale report claiming the engine stopped: the contract refuses it, so nothing changes.
    await node.publishAsync(GENSET, JSON.stringify({ ...staleGensetReport(), running: false }), {
      qos: 1,
      retain: true,
    });
    await publish(gensetReport({ mode: 'test_on_load' }));
    await waitFor(async () => (await app.request('GET', '/api/genset')).body.mode === 'test_on_load');
  });
});

describe('running feedback from the genset module', () => {
  it('confirms a commanded start; going stale is unknown, not an unexpected stop; a known stop is', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await controller();
    expect(
      (await app.request('PUT', '/api/health/settings', { running_feedback_source: 'genset' })).status,
    ).toBe(200);
    await publish(gensetReport());
    await waitFor(async () => (await health(app)).running_feedback === false);
    await app.request('POST', '/api/generator/arm');
    expect((await app.request('POST', '/api/generator/start', {})).status).toBe(200);
    await publish(gensetReport({ engine_state: 'running', running: true }));
    await waitFor(async () => (await health(app)).run_confirmed_at !== null);

    await publish(staleGensetReport());
    await waitFor(async () => (await health(app)).running_feedback === null);
    app.clock.advance(120_000);
    expect((await health(app)).alarm).toBeNull();
    expect((await history(app))[0]).toMatchObject({ stop_time: null });

    await publish(gensetReport({ engine_state: 'stopped', running: false }));
    await waitFor(async () => (await history(app))[0]?.stop_time !== null);
    expect((await history(app))[0]).toMatchObject({ stop_reason: 'unexpected_stop' });
    expect((await health(app)).alarm).toBe('unexpected_stop');
  });

  it('fail-to-start waits while the module is silent and is raised once it says the engine is stopped', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await controller();
    await app.request('PUT', '/api/health/settings', { running_feedback_source: 'genset' });
    await publish(staleGensetReport());
    await waitFor(async () => (await app.request('GET', '/api/genset')).status === 200);
    await app.request('POST', '/api/generator/arm');
    expect((await app.request('POST', '/api/generator/start', {})).status).toBe(200);
    app.clock.advance(61_000);
    await new Promise((r) => setTimeout(r, 200));
    expect((await health(app)).alarm).toBeNull();
    expect((await app.request('GET', '/api/generator/state')).body.running).toBe(true);

    await publish(gensetReport());
    // The known reading re-arms the check at its passed deadline: it fires on the clock's next tick.
    await waitFor(async () => {
      app.clock.advance(1);
      return (await health(app)).alarm === 'fail_to_start';
    });
    expect((await app.request('GET', '/api/generator/state')).body.running).toBe(false);
  });

  it('the module running with no command is an external run', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await controller();
    await app.request('PUT', '/api/health/settings', { running_feedback_source: 'genset' });
    await publish(gensetReport({ mode: 'manual', engine_state: 'running', running: true }));
    await waitFor(async () => (await history(app)).length === 1);
    expect((await history(app))[0]).toMatchObject({ trigger_type: 'external', stop_time: null });
    expect(app.relay.commands.includes(true)).toBe(false);
  });
});

const hooks = () =>
  rx.requests.map((r) => JSON.parse(r.body) as { event: string; data: Record<string, unknown> });
const hooked = (event: string) => hooks().filter((h) => h.event === event);

/** A controller whose webhook asks for the alarms and the genset notices, armed. */
async function armedWithWebhook(): Promise<TestApp> {
  const app = await controller();
  await app.request('POST', '/api/webhooks', {
    url: rx.url,
    secret: 'genset-webhook-secret',
    events: ['generator.alarm.*', 'generator.genset.*', 'generator.stopped.*'],
  });
  await app.request('POST', '/api/generator/arm');
  return app;
}

describe("the genset module's mode selector", () => {
  it('not in Auto warns on /health and by webhook once; back in Auto clears it', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await armedWithWebhook();
    await publish(gensetReport({ mode: 'auto_manual_restore' }));
    await waitFor(async () => (await health(app)).genset_mode === 'auto_manual_restore');
    expect((await health(app)).genset_warnings).toEqual([]);

    await publish(gensetReport({ mode: 'manual' }));
    await waitFor(async () => (await health(app)).genset_mode === 'manual');
    expect((await health(app)).genset_warnings).toEqual(['genset_not_in_auto']);
    await publish(
      gensetReport({
        mode: 'manual',
        instruments: { ...gensetReport().instruments, fuel_level_percent: 79 },
      }),
    );
    await waitFor(() => hooked('generator.alarm.genset_not_in_auto').length === 1);
    expect(hooked('generator.alarm.genset_not_in_auto')[0]?.data).toMatchObject({
      mode: 'manual',
      status: 'warning',
    });

    // Silence is not "back in Auto": the warning's state waits for a known mode.
    await publish(staleGensetReport());
    await waitFor(async () => (await health(app)).genset_mode === null);
    expect((await health(app)).genset_warnings).toEqual(['genset_unreachable']);
    await publish(gensetReport({ mode: 'auto' }));
    await waitFor(() => hooked('generator.genset.in_auto').length === 1);
    expect((await health(app)).genset_warnings).toEqual([]);
    expect(hooked('generator.alarm.genset_not_in_auto')).toHaveLength(1);
  });

  it('a start is refused with 409 while the module is in Stop, allowed with a warning in Manual', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await armedWithWebhook();
    await publish(gensetReport({ mode: 'stop' }));
    await waitFor(async () => (await health(app)).genset_mode === 'stop');
    const refused = await app.request('POST', '/api/generator/start', {});
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/Stop mode/);
    expect(app.relay.commands.includes(true)).toBe(false);

    await publish(gensetReport({ mode: 'manual' }));
    await waitFor(async () => (await health(app)).genset_mode === 'manual');
    const started = await app.request('POST', '/api/generator/start', {});
    expect(started.status).toBe(200);
    expect(started.body.message).toMatch(/Warning: .*Manual mode/);
  });

  it('a stale module does not block a start: unknown is not Stop', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await armedWithWebhook();
    await publish(gensetReport({ mode: 'stop' }));
    await waitFor(async () => (await health(app)).genset_mode === 'stop');
    await publish(staleGensetReport());
    await waitFor(async () => (await app.request('GET', '/api/genset')).body.stale === true);
    expect((await app.request('POST', '/api/generator/start', {})).status).toBe(200);
  });
});

describe("the genset module's alarms", () => {
  const alarm = (index: number, name: string, level: 'warning' | 'shutdown' | 'electrical_trip') => ({
    index,
    name,
    level,
  });

  it('a warning goes out once with its names; a shutdown ends the run as genset_shutdown and blocks restarts until reset', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await armedWithWebhook();
    await publish(gensetReport());
    await waitFor(async () => (await app.request('GET', '/api/genset')).status === 200);
    expect((await app.request('POST', '/api/generator/start', {})).status).toBe(200);
    const running = { engine_state: 'running' as const, running: true };
    const warning = alarm(9, 'low_fuel_level', 'warning');
    await publish(gensetReport({ ...running, alarms: { level: 'warning', active: [warning] } }));
    await publish(gensetReport({ ...running, alarms: { level: 'warning', active: [warning] } }));
    await waitFor(() => hooked('generator.alarm.genset_warning').length === 1);
    expect(hooked('generator.alarm.genset_warning')[0]?.data).toMatchObject({
      alarms: ['low_fuel_level'],
      level: 'warning',
    });
    expect((await app.request('GET', '/api/generator/state')).body.running).toBe(true);

    const shutdown = alarm(2, 'low_oil_pressure', 'shutdown');
    await publish(
      gensetReport({
        engine_state: 'stopped',
        running: false,
        alarms: { level: 'shutdown', active: [warning, shutdown] },
      }),
    );
    await waitFor(async () => (await history(app))[0]?.stop_time !== null);
    expect((await history(app))[0]).toMatchObject({ stop_reason: 'genset_shutdown' });
    await waitFor(() => hooked('generator.alarm.genset_shutdown').length === 1);
    expect(hooked('generator.alarm.genset_shutdown')[0]?.data).toMatchObject({
      alarms: ['low_oil_pressure'],
    });
    await waitFor(() => hooked('generator.stopped.genset_shutdown').length === 1);
    // The engine stopping is the shutdown itself, not an unexpected stop; the warning was not sent again.
    expect((await health(app)).alarm).toBeNull();
    expect(hooked('generator.alarm.genset_warning')).toHaveLength(1);

    // No retry: starts are refused while the shutdown stands, even once the module goes silent.
    const refused = await app.request('POST', '/api/generator/start', {});
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/shutdown alarm/);
    await publish(staleGensetReport());
    await waitFor(async () => (await app.request('GET', '/api/genset')).body.stale === true);
    expect((await app.request('POST', '/api/generator/start', {})).status).toBe(409);

    await publish(gensetReport());
    await waitFor(async () => (await app.request('GET', '/api/genset')).body.alarms?.level === 'none');
    expect((await app.request('POST', '/api/generator/start', {})).status).toBe(200);
  });

  it('an electrical trip is announced as such', async (ctx) => {
    if (!broker) return ctx.skip();
    const app = await armedWithWebhook();
    await publish(
      gensetReport({
        alarms: { level: 'electrical_trip', active: [alarm(20, 'kw_overload', 'electrical_trip')] },
      }),
    );
    await waitFor(() => hooked('generator.alarm.genset_electrical_trip').length === 1);
    expect(hooked('generator.alarm.genset_electrical_trip')[0]?.data).toMatchObject({
      alarms: ['kw_overload'],
    });
    expect((await app.request('GET', '/api/generator/history')).body).toHaveLength(0);
  });
});
