import { makeUser, type RunningBroker, startBroker } from '@outpost/broker';
import { generator } from '@outpost/contracts';
import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attachMqtt, mqttSinks } from '../../src/bus/mqtt-wiring.js';
import type { Database } from '../../src/db/connection.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The automation accounts (Home Assistant, Node-RED) on a real broker with accounts and ACL: by default
 * they cannot arm, force a run, lift an override or clear a lockout, so they cannot start a disarmed
 * generator (README); AUTOMATION_COMMANDS widens that. The audit names the account that sent a command
 * on its own topic.
 */

const PREFIX = 'autotest';
const PW = { controller: 'auto-controller-pw', automation: 'auto-automation-pw', nodered: 'auto-nodered-pw' };

let tdb: TestDatabase;
let database: Database;
let broker: RunningBroker;
let bus: OutpostMqtt | undefined;
let t: TestApp | undefined;
const clients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
  broker = await startBroker({
    port: 0,
    wsPort: false,
    host: '127.0.0.1',
    prefix: PREFIX,
    users: {
      users: [
        makeUser('controller', 'controller', '*', PW.controller),
        makeUser('automation', 'automation', '*', PW.automation),
        makeUser('nodered', 'automation', '*', PW.nodered),
      ],
    },
  });
}, 60_000);

afterEach(async () => {
  for (const c of clients.splice(0)) await c.endAsync(true);
  await bus?.close();
  await t?.close();
  bus = undefined;
  t = undefined;
});

afterAll(async () => {
  await broker?.close();
  await database?.close();
  await tdb?.cleanup();
});

async function controllerWith(automationCommands?: generator.AutomationCommand[]) {
  const logger = pino({ level: 'silent' });
  bus = await createMqtt({
    url: broker.url,
    service: 'controller',
    id: 'main',
    logger,
    prefix: PREFIX,
    username: 'controller',
    password: PW.controller,
  });
  await bus.waitConnected(5000);
  const sinks = mqttSinks(bus, { controllerId: 'main', relaynodeId: 'main' });
  t = await testApp(database, { eventSink: sinks.events });
  await attachMqtt(t.svc, bus, {
    sinks,
    heartbeat: null,
    controllerId: 'main',
    logger,
    ...(automationCommands ? { automationCommands: new Set(automationCommands) } : {}),
  });
  return t;
}

async function account(username: 'automation' | 'nodered') {
  const c = await mqtt.connectAsync(broker.url, { username, password: PW[username], reconnectPeriod: 0 });
  clients.push(c);
  return c;
}

const send = (c: mqtt.MqttClient, cmd: object, topic = `${PREFIX}/controller/main/set`) =>
  c.publishAsync(topic, JSON.stringify(cmd), { qos: 1 });

/** Waits until the controller has handled everything sent before: a stop always runs and is audited. */
async function settled(app: TestApp, c: mqtt.MqttClient): Promise<void> {
  const before = (await app.request('GET', '/api/audit?limit=1000')).body.length as number;
  await send(c, { command: 'stop', reason: 'settle' });
  await waitFor(async () => (await app.request('GET', '/api/audit?limit=1000')).body.length > before, 5000);
}

describe('automation commands', () => {
  it('by default cannot arm, force a run, lift an override or clear a lockout; a start while disarmed stays refused', async () => {
    const app = await controllerWith();
    const ha = await account('automation');
    await send(ha, { command: 'arm' });
    await send(ha, { command: 'override', override_type: 'force_run' });
    await send(ha, { command: 'start' });
    await settled(app, ha);
    const state = app.svc.controller.view();
    expect(state).toMatchObject({ armed: false, running: false });
    expect((await app.request('GET', '/api/override/status')).body).toMatchObject({ active: false });

    // A person enables force_stop over REST; automation cannot lift it.
    await app.request('POST', '/api/override/enable', { override_type: 'force_stop' });
    await send(ha, { command: 'override', override_type: null });
    await send(ha, { command: 'clear_lockout', acknowledge: true });
    await settled(app, ha);
    expect((await app.request('GET', '/api/override/status')).body).toMatchObject({
      active: true,
      override_type: 'force_stop',
    });
    // All automation got done was the settling stops.
    const fromMqtt = (
      (await app.request('GET', '/api/audit?limit=1000')).body as { who: string; action: string }[]
    )
      .filter((e) => e.who.startsWith('mqtt'))
      .map((e) => e.action);
    expect(new Set(fromMqtt)).toEqual(new Set(['generator.stop']));
  });

  it('stop, disarm and a start once a person armed still work, through the same gates', async () => {
    const app = await controllerWith();
    const ha = await account('automation');
    await app.request('POST', '/api/generator/arm');
    await send(ha, { command: 'start' });
    await waitFor(() => app.svc.controller.view().running, 5000);
    await send(ha, { command: 'stop', reason: 'from HA' });
    await waitFor(() => !app.svc.controller.view().running, 5000);
    await send(ha, { command: 'disarm' });
    await waitFor(() => !app.svc.controller.view().armed, 5000);
  });

  it('AUTOMATION_COMMANDS decides: with arm listed, automation may arm', async () => {
    const app = await controllerWith([...generator.DEFAULT_AUTOMATION_COMMANDS, 'arm']);
    const ha = await account('automation');
    await send(ha, { command: 'arm' });
    await waitFor(() => app.svc.controller.view().armed, 5000);
  });

  it('the audit names the account that sent the command on its own topic', async () => {
    const app = await controllerWith();
    const nodered = await account('nodered');
    await send(nodered, { command: 'stop', reason: 'node-red' }, `${PREFIX}/controller/main/set/nodered`);
    const entry = async () =>
      ((await app.request('GET', '/api/audit?limit=20')).body as { who: string; from: string }[]).find((a) =>
        a.from.endsWith('/set/nodered'),
      );
    await waitFor(async () => Boolean(await entry()), 5000);
    expect(await entry()).toMatchObject({
      who: 'mqtt:nodered',
      from: `${PREFIX}/controller/main/set/nodered`,
    });

    // The bare topic names the automation role; no account can speak for another.
    const ha = await account('automation');
    await send(ha, { command: 'stop', reason: 'bare' });
    await waitFor(async () =>
      ((await app.request('GET', '/api/audit?limit=20')).body as { who: string }[]).some(
        (a) => a.who === 'mqtt:automation',
      ),
    );
    const forged = await account('automation');
    forged.publish(`${PREFIX}/controller/main/set/nodered`, JSON.stringify({ command: 'stop' }), { qos: 1 });
    await new Promise<void>((resolve) => forged.once('close', () => resolve()));
  });
});
