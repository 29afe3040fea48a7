import type { genset } from '@outpost/contracts';
import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attachGensetLink } from '../../src/bus/genset-link.js';
import type { Database } from '../../src/db/connection.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { gensetReport, staleGensetReport } from '../helpers/genset-fixtures.js';
import { type Mosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { waitFor } from '../helpers/wait.js';

const GENSET = 'otest/relaynode/main/genset';
const HOUR = 3600;
let tdb: TestDatabase;
let database: Database;
let broker: Mosquitto | null;
let bus: OutpostMqtt | null = null;
let t: TestApp | null = null;
let node: mqtt.MqttClient;
let n = 0;

/** A controller on the real database, following the relay node's genset topic on the real broker. */
async function controller(reset = true): Promise<TestApp> {
  if (!broker) throw new Error('no broker');
  const app = await testApp(database, { reset });
  const logger = pino({ level: 'silent' });
  n += 1;
  bus = await createMqtt({ url: broker.url, service: 'controller', id: `hm${n}`, logger, prefix: 'otest' });
  await attachGensetLink({ bus, relaynodeId: 'main', controller: app.svc.controller, logger });
  t = app;
  return app;
}

async function stop(): Promise<void> {
  await t?.close();
  await bus?.close();
  t = null;
  bus = null;
}

const publish = (state: genset.GensetState | '') =>
  node.publishAsync(GENSET, state === '' ? '' : JSON.stringify(state), { qos: 1, retain: true });
const hours = async (app: TestApp) => (await app.request('GET', '/api/health')).body.engine_hours as number;
// What Home Assistant's total_run_hours and /metrics' run-seconds counter show.
const runSeconds = async (app: TestApp) => app.svc.controller.meters().run_seconds;
const withRunTime = (seconds: number) =>
  gensetReport({ accumulated: { engine_run_time_s: seconds, energy_kwh: 5400, starts: 310 } });

beforeAll(async () => {
  broker = await startMosquitto();
  if (!broker) return;
  tdb = await testDatabase();
  database = await tdb.open();
  node = mqtt.connect(broker.url, { clientId: `hm-node-${process.pid}` });
  await new Promise<void>((resolve) => node.once('connect', () => resolve()));
}, 60_000);

afterEach(async () => {
  await stop();
  await node?.publishAsync(GENSET, '', { qos: 1, retain: true });
});

afterAll(async () => {
  node?.end(true);
  await database?.close();
  await tdb?.cleanup();
  await broker?.cleanup();
});

describe("the engine-hour meter follows the generator's own controller", () => {
  it("takes the module's run time, keeps it through silence and a restart, and leaves the run meters alone", async (ctx) => {
    if (!broker) return ctx.skip();
    let app = await controller();
    expect(await hours(app)).toBe(0);
    const before = await runSeconds(app);

    await publish(withRunTime(120 * HOUR));
    await waitFor(async () => (await hours(app)) === 120);

    // Silent module: the meter keeps the last reading (and would count on from it), never drops to the estimate's 0.
    await publish(staleGensetReport());
    await waitFor(async () => (await app.request('GET', '/api/genset')).body.stale === true);
    expect(await hours(app)).toBe(120);

    // A module meter reset or a replaced module: engine hours follow it (a `total` in Home Assistant)...
    await publish(withRunTime(100 * HOUR + 36));
    await waitFor(async () => (await hours(app)) === 100.01);
    // ...while the total run hours, Home Assistant's total_increasing meter, are Outpost's own and do not move.
    expect(await runSeconds(app)).toBe(before);

    // A module reporting no run time leaves the meter where it is.
    await publish(gensetReport({ accumulated: { engine_run_time_s: null, energy_kwh: null, starts: null } }));
    await waitFor(async () => (await app.request('GET', '/api/genset')).body.accumulated.starts === null);
    expect(await hours(app)).toBe(100.01);

    // The meter is stored: a restart with no report yet starts from it.
    await stop();
    await publish('');
    app = await controller(false);
    expect(await hours(app)).toBe(100.01);
  });
});
