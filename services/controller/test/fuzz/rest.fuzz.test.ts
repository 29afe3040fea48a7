/**
 * REST fuzz of every operation in the controller's own OpenAPI document (GET /api/openapi.json),
 * relay node administration routes included (answered by an in-process relay node over an embedded
 * broker), on PostgreSQL with a valid bearer token so requests reach validation.
 *
 * Every answer: status < 500, a 4xx is JSON with a string `detail`, and a 4xx leaves the generator
 * state (less its clock fields) and the audit log length as they were. Accepted requests may act
 * (arm, start, create a schedule...): for those only "no 5xx" holds.
 *
 * Counts: FUZZ_RUNS requests in total when set (spread evenly over the operations), else 3,000
 * (about 25 s wall with setup on this 2-core machine; 10,000 take about 70 s). FUZZ_SEED replays a
 * seed; a failure prints seed and path.
 */
import type { RunningBroker } from '@outpost/broker';
import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkLimits,
  fuzzRest,
  installNetGuard,
  type NetGuard,
  type Operation,
  operations,
  reportTally,
  type Resolver,
  surfaceRuns,
} from '@outpost/contracts/testing';
import { startTestNode } from '@outpost/relay-node/testing';
import { RelaynodeAdmin } from '../../src/bus/relaynode-admin.js';
import type { Database } from '../../src/db/connection.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { embeddedBroker } from '../helpers/stack.js';
import { controllerTarget } from './fuzz-helpers.js';

const RUNS = surfaceRuns(3_000);
/** The relay node reads its system information (hundreds of ms per call): a tenth of the share. */
const SLOW_AWARE = (op: Operation) => (op.path === '/api/relaynode/system' ? 1 : 10);

let tdb: TestDatabase;
let database: Database;
let broker: RunningBroker;
let node: Awaited<ReturnType<typeof startTestNode>>;
let bus: OutpostMqtt;
let t: TestApp;
let guard: NetGuard;
let ops: Operation[];
let resolve: Resolver;

beforeAll(async () => {
  guard = installNetGuard();
  tdb = await testDatabase();
  database = await tdb.open();
  broker = await embeddedBroker();
  const mqtt = { url: broker.url, username: undefined, password: undefined, prefix: 'outpost' };
  node = await startTestNode({ config: { mqtt } });
  await node.bus?.waitConnected(5_000);
  bus = await createMqtt({
    url: broker.url,
    service: 'controller',
    id: 'main',
    logger: pino({ level: 'silent' }),
  });
  t = await testApp(database, { gateway: { relaynode: new RelaynodeAdmin(bus, 'main', 10_000) } });
  const doc = await (await t.app.request('/api/openapi.json')).json();
  ({ ops, resolve } = operations(doc));
}, 90_000);

afterAll(async () => {
  await t?.close();
  await bus?.close();
  await node?.stop();
  await broker?.close();
  await database?.close();
  await tdb?.cleanup();
  guard?.restore();
});

describe('controller REST API under fuzzed input', () => {
  it('documents the routes the fuzzer covers, relay node administration included', () => {
    const keys = ops.map((o) => o.key);
    for (const k of [
      'POST /api/generator/start',
      'PUT /api/schedules/{id}',
      'POST /api/relaynode/reboot-schedule',
      'GET /api/audit',
    ]) {
      expect(keys).toContain(k);
    }
  });

  it(`answers ${RUNS} generated requests without a 5xx; rejections change nothing`, {
    timeout: 600_000,
  }, async () => {
    const tally = await fuzzRest(ops, resolve, controllerTarget(t, database), RUNS, SLOW_AWARE);
    reportTally('controller', tally);
    expect(guard.refused).toEqual([]);
  });

  it('refuses oversized bodies with 413 and deep or huge JSON with a 4xx', { timeout: 300_000 }, async () => {
    const checked = await checkLimits(ops, resolve, controllerTarget(t, database));
    expect(checked).toBeGreaterThan(ops.length);
    // Still serving after all of it.
    expect((await t.request('GET', '/api/generator/state')).status).toBe(200);
    expect(guard.refused).toEqual([]);
  });

  // Over REST the relay node refuses a notification test without notifier URLs with 409; through
  // the controller's MQTT proxy the refusal must stay the client's mistake, not become a 502.
  it('passes the relay node refusal of a notification test without URLs on as a 4xx', async () => {
    expect((await t.request('POST', '/api/relaynode/notifications', { notifier_urls: [] })).status).toBe(200);
    const res = await t.request('POST', '/api/relaynode/notifications/test');
    expect(res.body.detail).toContain('No notifier URLs configured');
    expect(res.status).toBe(409);
  });
});
