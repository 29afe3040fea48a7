/**
 * MQTT fuzz of every topic the controller subscribes to, through a real embedded broker with the
 * controller wired in-process as main.ts wires it (set commands, relay node availability and state,
 * relay node administration answers, Home Assistant's status), on PostgreSQL and a manual clock.
 *
 * Refused payloads (bytes, text, any JSON, contract-shaped JSON with one field broken) must leave
 * the generator state, the audit log and the relay commands as they were, with no unhandled
 * rejection; afterwards the controller still obeys a valid set command.
 *
 * Start commands the contract accepts are refused while disarmed: the generator stays idle.
 *
 * Counts: FUZZ_RUNS messages per property when set, else 5,000 refused payloads and 500 start
 * commands (about 15 s on a loaded 2-core machine).
 * FUZZ_SEED replays a seed; a failure prints seed, path and the batch that changed something.
 */
import type { RunningBroker } from '@outpost/broker';
import { ManualClock } from '@outpost/runtime/clock';
import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import fc from 'fast-check';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generator } from '@outpost/contracts';
import { z } from 'zod';
import {
  clientBarrier,
  fcParams,
  fuzzMqtt,
  type JsonSchema,
  noDelay,
  resolverFor,
  surfaceRuns,
  until,
  validValue,
  watchProcess,
} from '@outpost/contracts/testing';
import { MemoryNodeKeyStore, NodeReportGate } from '../../src/domain/node-report-gate.js';
import { HeartbeatPublisher } from '../../src/domain/heartbeat-lease.js';
import { attachMqtt, mqttSinks } from '../../src/bus/mqtt-wiring.js';
import { RelaynodeAdmin } from '../../src/bus/relaynode-admin.js';
import { attachRelaynodeLink } from '../../src/bus/relaynode-link.js';
import type { Database } from '../../src/db/connection.js';
import { attachHomeAssistant } from '../../src/ha/attach.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { embeddedBroker } from '../helpers/stack.js';
import { controllerSnapshot, generatorState } from './fuzz-helpers.js';

const MESSAGES = surfaceRuns(5_000);
const STARTS = surfaceRuns(500);
const P = 'outpost';

let tdb: TestDatabase;
let database: Database;
let broker: RunningBroker;
let bus: OutpostMqtt;
let t: TestApp;
let heartbeat: HeartbeatPublisher;
let ha: ReturnType<typeof attachHomeAssistant>;
let client: mqtt.MqttClient;
const watch = watchProcess();

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
  broker = await embeddedBroker();
  const logger = pino({ level: 'silent' });
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  bus = await createMqtt({ url: broker.url, service: 'controller', id: 'main', logger, prefix: P });
  const sinks = mqttSinks(bus, { controllerId: 'main', relaynodeId: 'main' });
  heartbeat = new HeartbeatPublisher({ clock, logger, intervalSeconds: 10, sink: sinks.desired });
  t = await testApp(database, { clock, eventSink: sinks.events });
  heartbeat.setIntent(() => t.svc.controller.desired());
  const wiring = { bus, relaynodeId: 'main', heartbeat, controller: t.svc.controller, clock, logger };
  const gate = new NodeReportGate('main', new MemoryNodeKeyStore(), () => clock.now());
  await attachRelaynodeLink({ ...wiring, intervalSeconds: 10, gate });
  await attachMqtt(t.svc, bus, { sinks, heartbeat, controllerId: 'main', logger });
  ha = attachHomeAssistant(t.svc, bus, {
    enabled: true,
    haPrefix: 'homeassistant',
    controllerId: 'main',
    relaynodeId: 'main',
    hoaEnabled: true,
    version: '0.0.0-test',
    clock,
    logger,
  });
  // One administration request (unanswered) subscribes the controller to the node's answers.
  await new RelaynodeAdmin(bus, 'main', 100).call('status').catch(() => undefined);
  client = noDelay(await mqtt.connectAsync(broker.url, { clientId: `controller-fuzz-${process.pid}` }));
}, 90_000);

afterAll(async () => {
  await client?.endAsync();
  ha?.close();
  heartbeat?.stop();
  await t?.close();
  await bus?.close();
  await broker?.close();
  await database?.close();
  await tdb?.cleanup();
  watch.stop();
});

describe('controller MQTT subscriptions under fuzzed payloads', () => {
  it(`drops ${MESSAGES} refused payloads on every subscribed topic; nothing changes`, {
    timeout: 300_000,
  }, async () => {
    const barrier = await clientBarrier(bus.client, client, `${P}/fuzz/barrier`);
    const snapshot = async () => ({
      ...(await controllerSnapshot(t, database)),
      relay: t.relay.commands.length,
    });
    const sent = await fuzzMqtt({
      client,
      surfaces: [
        { key: 'controllerSet', topic: fc.constant(`${P}/controller/main/set`) },
        { key: 'availability', topic: fc.constant(`${P}/relaynode/main/availability`) },
        { key: 'relaynodeState', topic: fc.constant(`${P}/relaynode/main/state`) },
        { key: 'response', topic: fc.constant(`${P}/relaynode/main/response/status`) },
        { key: 'haStatus', topic: fc.constant('homeassistant/status') },
      ],
      messages: MESSAGES,
      barrier,
      snapshot,
    });
    console.log('controller MQTT refused payloads per topic:', Object.fromEntries(sent));
    expect(watch.errors).toEqual([]);
  });

  it(`refuses ${STARTS} valid start commands while disarmed; the generator stays idle`, {
    timeout: 300_000,
  }, async () => {
    const json = z.toJSONSchema(generator.ControllerSetCommand, { io: 'input' }) as JsonSchema;
    const starts = validValue(json, resolverFor({})).filter(
      (c) =>
        (c as { command: string }).command === 'start' && generator.ControllerSetCommand.safeParse(c).success,
    );
    const barrier = await clientBarrier(bus.client, client, `${P}/fuzz/barrier-start`);
    const before = await controllerSnapshot(t, database);
    await fc.assert(
      fc.asyncProperty(starts, async (cmd) => {
        await client.publishAsync(`${P}/controller/main/set`, JSON.stringify(cmd), { qos: 1 });
        await barrier();
        const now = await controllerSnapshot(t, database);
        expect(now.state, JSON.stringify(cmd)).toEqual(before.state);
        expect(t.relay.commands).not.toContain(true);
      }),
      fcParams(STARTS),
    );
    expect(watch.errors).toEqual([]);
  });

  it('still obeys a valid set command afterwards', async () => {
    expect((await generatorState(t)).armed).toBe(false);
    await t.request('POST', '/api/generator/arm');
    await client.publishAsync(`${P}/controller/main/set`, JSON.stringify({ command: 'disarm' }), { qos: 1 });
    await until(async () => (await generatorState(t)).armed === false, 5_000);
    await t.request('POST', '/api/generator/arm');
    await client.publishAsync(`${P}/controller/main/set`, JSON.stringify({ command: 'start' }), { qos: 1 });
    await until(async () => (await generatorState(t)).running === true, 5_000);
    expect(watch.errors).toEqual([]);
  });
});
