import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { attachConditionSources, type ConditionSources } from '../../src/bus/condition-sources.js';
import { attachMqtt, mqttSinks } from '../../src/bus/mqtt-wiring.js';
import { attachHomeAssistant } from '../../src/ha/attach.js';
import type { Database } from '../../src/db/connection.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { type Mosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { waitFor } from '../helpers/wait.js';
import { LOAD_CONDITION, SOC_CONDITION } from '../helpers/condition-fixtures.js';

const S = 1000;
let tdb: TestDatabase;
let database: Database;
let site: Mosquitto | null;
let bus: OutpostMqtt;
let sources: ConditionSources;
let t: TestApp;
let pub: mqtt.MqttClient;
let watcher: mqtt.MqttClient;
let ha: ReturnType<typeof attachHomeAssistant> | undefined;
const seen: { topic: string; payload: string }[] = [];

const soc = SOC_CONDITION;
const load = LOAD_CONDITION;
const plain = (topic: string, extra: object = {}) => ({
  type: 'mqtt',
  topic,
  stale_after_seconds: 3600,
  ...extra,
});

const state = async () => (await t.request('GET', '/api/generator/state')).body;
const overview = async () => (await t.request('GET', '/api/conditions')).body;
const cond = async (name: string) =>
  (await overview()).conditions.find((c: { name: string }) => c.name === name);
const value = async (name: string) =>
  (await overview()).sources.find((s: { name: string }) => s.name === name)?.value;
const configure = async (cfg: object) => {
  const res = await t.request('PUT', '/api/conditions/config', cfg);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
/** Publishes a reading and waits until the controller holds it. */
const send = async (topic: string, payload: string, source: string, expected: number | null) => {
  await pub.publishAsync(topic, payload, { qos: 1 });
  await waitFor(async () => (await value(source)) === expected);
};
const advance = async (ms: number) => {
  t.clock.advance(ms);
  await new Promise((r) => setTimeout(r, 20));
};
/**
 * An event reached the bus. The outbox's retry sweep runs on the manual clock, which these tests move
 * only where time matters: the wait kicks the dispatcher as its sweep would.
 */
const eventSeen = (name: string) =>
  waitFor(async () => {
    await t.svc.dispatcher.kick();
    return seen.some((m) => m.topic === `ctest/controller/main/event/${name}`);
  });
const lastRun = async () => (await t.request('GET', '/api/generator/history?limit=1')).body[0];

beforeAll(async () => {
  site = await startMosquitto();
  if (!site) return;
  tdb = await testDatabase();
  database = await tdb.open();
  const logger = pino({ level: 'silent' });
  bus = await createMqtt({ url: site.url, service: 'controller', id: 'main', logger, prefix: 'ctest' });
  const sinks = mqttSinks(bus, { controllerId: 'main', relaynodeId: 'main' });
  t = await testApp(database, { eventSink: sinks.events });
  await attachMqtt(t.svc, bus, { sinks, heartbeat: null, controllerId: 'main', logger });
  sources = await attachConditionSources(t.svc, {
    site: bus.client,
    clock: t.clock,
    logger,
    controllerId: 'main',
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
  pub = await mqtt.connectAsync(site.url, { clientId: `bms-${process.pid}` });
  watcher = await mqtt.connectAsync(site.url, { clientId: `watch-${process.pid}` });
  watcher.on('message', (topic, payload) => seen.push({ topic, payload: payload.toString() }));
  await watcher.subscribeAsync(['ctest/controller/main/#', 'homeassistant/device/+/config'], { qos: 1 });
}, 60_000);

afterAll(async () => {
  pub?.end(true);
  watcher?.end(true);
  await sources?.close();
  ha?.close();
  await t?.close();
  await bus?.close();
  await database?.close();
  await tdb?.cleanup();
  await site?.cleanup();
});

beforeEach(async () => {
  if (!site) return;
  await configure({});
  await t.request('POST', '/api/generator/stop', { reason: 'test reset' });
  await t.request('POST', '/api/override/disable');
  await t.request('POST', '/api/dev/gpio/hoa', { position: 'auto' });
  await t.svc.controller.relayReported({ physical_safety_engaged: false });
  await t.request('POST', '/api/generator/clear-lockout', { acknowledge: true });
  await t.request('POST', '/api/generator/arm');
  seen.length = 0;
});

describe('start conditions on a real broker', () => {
  it('SoC below the start value for the delay starts (trigger soc); a shorter dip does not; state and MQTT show the countdown', async (ctx) => {
    if (!site) return ctx.skip();
    await configure({ conditions: { soc }, sources: { soc: plain('bms/jk/soc') } });
    await send('bms/jk/soc', '28', 'soc', 28);
    expect(await cond('soc')).toMatchObject({ state: 'start_pending', countdown_seconds: 120 });
    await waitFor(() =>
      seen.some((m) => m.topic === 'ctest/controller/main/state' && m.payload.includes('"start_pending"')),
    );
    await advance(90 * S);
    await send('bms/jk/soc', '32', 'soc', 32);
    await advance(120 * S);
    expect((await state()).running).toBe(false);
    // A payload the source cannot read is dropped and changes nothing.
    await pub.publishAsync('bms/jk/soc', '{"soc": 27}', { qos: 1 });
    await send('bms/jk/soc', '27', 'soc', 27);
    await advance(120 * S);
    await waitFor(async () => (await state()).running === true);
    expect(await state()).toMatchObject({ trigger: 'soc' });
    await waitFor(async () => (await lastRun())?.trigger_value === 27);
    await eventSeen('generator.started.soc');
  });

  it('stops above the stop value after the stop delay, not before the minimum run time', async (ctx) => {
    if (!site) return ctx.skip();
    await configure({
      conditions: { soc: { ...soc, start_delay_seconds: 0 } },
      sources: { soc: plain('bms/jk/data', { json_path: 'battery.soc' }) },
      minimum_run_minutes: 20,
    });
    await send('bms/jk/data', JSON.stringify({ battery: { soc: 25 } }), 'soc', 25);
    await waitFor(async () => (await state()).running === true);
    await send('bms/jk/data', JSON.stringify({ battery: { soc: 88 } }), 'soc', 88);
    await advance(60 * S);
    expect(await cond('soc')).toMatchObject({ state: 'idle' });
    expect((await state()).running).toBe(true);
    await advance(18 * 60 * S);
    expect((await state()).running).toBe(true);
    await advance(60 * S);
    await waitFor(async () => (await lastRun())?.stop_time !== null);
    expect(await lastRun()).toMatchObject({ stop_reason: 'soc', stop_value: 88, duration_seconds: 20 * 60 });
  });

  it('quiet hours use their own thresholds', async (ctx) => {
    if (!site) return ctx.skip();
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    const now = t.clock.now();
    await configure({
      conditions: { soc: { ...soc, start_delay_seconds: 0, quiet_start_value: 15, quiet_stop_value: 50 } },
      sources: { soc: plain('bms/jk/soc') },
      quiet_hours: { enabled: true, start: hhmm(now - 3_600_000), end: hhmm(now + 3_600_000) },
    });
    await send('bms/jk/soc', '20', 'soc', 20);
    expect(await overview()).toMatchObject({ quiet_hours_active: true });
    expect(await cond('soc')).toMatchObject({ state: 'idle', start_value: 15, stop_value: 50 });
    expect((await state()).running).toBe(false);
    await send('bms/jk/soc', '14', 'soc', 14);
    await waitFor(async () => (await state()).running === true);
  });

  it('grid present (Home Assistant statestream) keeps it off', async (ctx) => {
    if (!site) return ctx.skip();
    await configure({
      conditions: { soc: { ...soc, start_delay_seconds: 0 } },
      sources: {
        soc: { type: 'ha_statestream', entity_id: 'sensor.battery_soc', stale_after_seconds: 3600 },
        grid: { type: 'ha_statestream', entity_id: 'binary_sensor.grid_power', stale_after_seconds: 3600 },
      },
      keep_off_while_grid: true,
    });
    await send('homeassistant/binary_sensor/grid_power/state', 'on', 'grid', 1);
    await send('homeassistant/sensor/battery_soc/state', '21.5', 'soc', 21.5);
    expect(await overview()).toMatchObject({ grid_present: true });
    await advance(5 * S);
    expect((await state()).running).toBe(false);
    await send('homeassistant/binary_sensor/grid_power/state', 'off', 'grid', 0);
    await waitFor(async () => (await state()).running === true);
    await send('homeassistant/binary_sensor/grid_power/state', 'on', 'grid', 1);
    await waitFor(async () => (await lastRun())?.stop_time !== null);
    expect(await lastRun()).toMatchObject({ trigger_type: 'soc', stop_reason: 'grid_present' });
  });

  it('a stale source never starts it, and raises the warning on MQTT', async (ctx) => {
    if (!site) return ctx.skip();
    await configure({
      conditions: { soc: { ...soc, start_delay_seconds: 60 } },
      sources: { soc: plain('bms/jk/soc', { stale_after_seconds: 30 }) },
    });
    await send('bms/jk/soc', '10', 'soc', 10);
    await advance(31 * S);
    await waitFor(async () => (await overview()).sources[0].status === 'stale');
    await advance(60 * S);
    expect((await state()).running).toBe(false);
    expect(await cond('soc')).toMatchObject({ state: 'unknown', value: null });
    await eventSeen('condition_source_stale');
    await eventSeen('generator.condition.source_stale');
  });

  it.each([
    ['disarmed', async () => t.request('POST', '/api/generator/disarm')],
    ['force_stop', async () => t.request('POST', '/api/override/enable', { override_type: 'force_stop' })],
    ['Quiet', async () => t.request('POST', '/api/dev/gpio/hoa', { position: 'quiet' })],
    ['EPO', async () => t.svc.controller.relayReported({ physical_safety_engaged: true })],
    [
      'lockout',
      async () => {
        await t.request('PUT', '/api/generator/runtime-limits', {
          runtime_limits_enabled: true,
          max_run_minutes: 1,
          lockout_on_max_runtime: true,
        });
        await t.request('POST', '/api/generator/start', {});
        await advance(61 * S);
        await waitFor(
          async () => (await t.request('GET', '/api/generator/runtime-limits')).body.lockout_active,
        );
        await t.request('PUT', '/api/generator/runtime-limits', { runtime_limits_enabled: false });
      },
    ],
  ] as const)('%s blocks a condition start exactly as it blocks the input signal', async (_label, block) => {
    // Without Mosquitto (allowed only outside CI) there is nothing to run against.
    if (!site) return;
    await configure({
      conditions: { soc: { ...soc, start_delay_seconds: 0 } },
      sources: { soc: plain('bms/jk/soc') },
    });
    await block();
    await send('bms/jk/soc', '20', 'soc', 20);
    await t.request('POST', '/api/dev/gpio/bms-signal', { active: true });
    await advance(5 * S);
    expect((await state()).running).toBe(false);
    await t.request('POST', '/api/dev/gpio/bms-signal', { active: false });
    const audit = (await t.request('GET', '/api/audit?limit=20')).body as {
      action: string;
      who: string;
      details: { code: string };
    }[];
    const refusals = audit.filter((a) => a.action === 'generator.start_refused');
    const byConditions = refusals.find((a) => a.who === 'conditions');
    const bySignal = refusals.find((a) => a.who === 'bms');
    expect(byConditions?.details.code).toBeDefined();
    expect(byConditions?.details.code).toBe(bySignal?.details.code);
  });

  it('two conditions (SoC and AC load): either starts, the run stops only when both are satisfied', async (ctx) => {
    if (!site) return ctx.skip();
    await configure({
      conditions: { soc, ac_load: load },
      sources: { soc: plain('bms/jk/soc'), ac_load: plain('meter/load', { json_path: 'power' }) },
    });
    await send('bms/jk/soc', '60', 'soc', 60);
    await send('meter/load', '{"power": 3400}', 'ac_load', 3400);
    await advance(10 * S);
    await waitFor(async () => (await state()).running === true);
    expect((await state()).trigger).toBe('ac_load');
    await send('bms/jk/soc', '25', 'soc', 25);
    await advance(120 * S);
    await waitFor(async () => (await cond('soc'))?.state === 'active');
    await send('meter/load', '{"power": 400}', 'ac_load', 400);
    await advance(30 * S);
    await waitFor(async () => (await cond('ac_load'))?.state === 'idle');
    expect((await state()).running).toBe(true);
    await send('bms/jk/soc', '90', 'soc', 90);
    await advance(60 * S);
    await waitFor(async () => (await lastRun())?.stop_time !== null);
    expect(await lastRun()).toMatchObject({ trigger_type: 'ac_load', stop_reason: 'soc', stop_value: 90 });
  });

  it('Home Assistant gets a sensor per source and a binary sensor per condition when they are configured', async (ctx) => {
    if (!site) return ctx.skip();
    await configure({
      conditions: { soc, ac_load: load },
      sources: { soc: plain('bms/jk/soc'), ac_load: plain('meter/load') },
    });
    const discovery = () =>
      seen
        .filter((m) => m.topic === 'homeassistant/device/outpost_controller_main/config' && m.payload)
        .map((m) => JSON.parse(m.payload).cmps as Record<string, { name?: string }>)
        .at(-1);
    await waitFor(() => discovery()?.condition_ac_load?.name !== undefined);
    const cmps = discovery() ?? {};
    expect(cmps.source_soc?.name).toBe('Battery state of charge');
    expect(cmps.source_ac_load?.name).toBe('AC load');
    expect(cmps.condition_soc?.name).toBe('Start condition battery state of charge');
    expect(cmps.source_grid).toEqual({ p: 'sensor' });
  });
});
