import { type RunningBroker, startBroker } from '@outpost/broker';
import { hashPassword } from '@outpost/broker/users';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import {
  built,
  controllerClient,
  nodeStatus,
  PREFIX,
  type Proc,
  spawnController,
  spawnRelayNode,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';

const INTERVAL_S = 1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Someone with the relay node's broker account (its password is in the join string) publishes the
 * node's state. Before node reports were signed and epochs recovered only on the controller's own
 * signature, one state with epoch "999999999999999" moved the controller's epoch to 10^15, past the
 * 15-digit encoding: no lease was published again, for good (the sequence is in the database). Here the
 * broker enforces its accounts and ACL as on a site, the controller and the relay node are real
 * processes, and the forger uses exactly the relay node's account.
 */
describe("the relay node's broker account cannot silence the controller", () => {
  let broker: RunningBroker;
  let node: Proc;
  let controller: Proc;
  let tdb: TestDatabase;
  let forger: MqttClient;
  let watcher: MqttClient;
  const desired: { epoch: string; seq: number; at: number }[] = [];
  const events: string[] = [];
  const nodeDir = tempDir('forgery-node');
  const ctlDir = tempDir('forgery-ctl');
  const account = (username: string, role: string, password: string) => ({
    username,
    role,
    id: role === 'relaynode' ? 'main' : '*',
    ...hashPassword(password),
  });

  beforeAll(async () => {
    if (!built) return;
    broker = await startBroker({
      port: 0,
      wsPort: false,
      host: '127.0.0.1',
      prefix: PREFIX,
      users: {
        users: [
          account('ctl', 'controller', 'controller-password'),
          account('node', 'relaynode', 'relaynode-password'),
          account('watch', 'viewer', 'viewer-password'),
        ],
      } as never,
    });
    tdb = await testDatabase();
    node = await spawnRelayNode({
      mqttUrl: broker.url,
      dataDir: nodeDir.path,
      extra: { MQTT_USERNAME: 'node', MQTT_PASSWORD: 'relaynode-password' },
    });
    controller = await spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: tdb.url,
      intervalSeconds: INTERVAL_S,
      extra: { MQTT_USERNAME: 'ctl', MQTT_PASSWORD: 'controller-password' },
    });
    watcher = await mqtt.connectAsync(broker.url, { username: 'watch', password: 'viewer-password' });
    watcher.on('message', (topic, payload) => {
      if (topic.endsWith('/desired')) {
        const d = JSON.parse(payload.toString());
        desired.push({ epoch: d.epoch, seq: d.seq, at: performance.now() });
      } else if (topic.includes('/event/')) events.push(topic.split('/').at(-1) as string);
    });
    await watcher.subscribeAsync([`${PREFIX}/relaynode/main/desired`, `${PREFIX}/controller/main/event/#`]);
    forger = await mqtt.connectAsync(broker.url, {
      username: 'node',
      password: 'relaynode-password',
      clientId: 'forger',
    });
  });

  afterAll(async () => {
    forger?.end(true);
    watcher?.end(true);
    await controller?.kill();
    await node?.kill();
    await broker?.close();
    await tdb?.cleanup();
    nodeDir.remove();
    ctlDir.remove();
  });

  it('a forged epoch claim is ignored and raised once; leases go on; a start reaches the relay and is confirmed', async (ctx) => {
    if (!built) return ctx.skip();
    const api = await controllerClient(controller.url);
    await waitFor(async () => (await api.state()).slave_connected === true, 10_000);
    await waitFor(async () => desired.length > 0, 5000);
    const before = desired.at(-1)!.epoch;
    const genuine = await new Promise<Record<string, unknown>>((resolve) => {
      const probe = mqtt.connect(broker.url, { username: 'watch', password: 'viewer-password' });
      probe.on('message', (_t, p) => {
        probe.end(true);
        resolve(JSON.parse(p.toString()));
      });
      probe.subscribe(`${PREFIX}/relaynode/main/state`);
    });
    // The broker accepts it: the account may publish the node's state (the ACL is not what stops it).
    await forger.publishAsync(
      `${PREFIX}/relaynode/main/state`,
      JSON.stringify({ ...genuine, epoch: '999999999999999', applied_seq: 1 }),
      { qos: 1, retain: true },
    );
    const forgedAt = performance.now();
    await sleep(6_000);
    const after = desired.filter((d) => d.at > forgedAt);
    // A lease at least once per interval, all in the same epoch.
    expect(after.length).toBeGreaterThanOrEqual(5);
    expect(new Set(after.map((d) => d.epoch))).toEqual(new Set([before]));
    for (let i = 1; i < after.length; i++) {
      expect(after[i]!.at - after[i - 1]!.at).toBeLessThan(INTERVAL_S * 1000 + 250);
    }
    expect(events.filter((e) => e === 'relay_node_report_unverified')).toHaveLength(1);

    expect((await api.post('/api/generator/arm')).status).toBe(200);
    const start = await api.post('/api/generator/start');
    expect(start.status).toBe(200);
    await waitFor(async () => (await nodeStatus(node.url)).relay_on, 2 * INTERVAL_S * 1000 + 500);
    await waitFor(async () => (await api.state()).relay_confirmed_at !== null, 3000);
    expect((await api.post('/api/generator/stop')).status).toBe(200);
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on, INTERVAL_S * 1000 + 500);
  });

  it('a forged confirmation from the account confirms nothing', async (ctx) => {
    if (!built) return ctx.skip();
    const api = await controllerClient(controller.url);
    // The node is cut off from the broker (its process paused), so nothing genuine can confirm.
    process.kill(node.child.pid as number, 'SIGSTOP');
    try {
      const start = await api.post('/api/generator/start');
      expect(start.status).toBe(200);
      const last = desired.at(-1)!;
      await forger.publishAsync(
        `${PREFIX}/relaynode/main/state`,
        JSON.stringify({
          relay_on: true,
          armed: true,
          failsafe_triggered: false,
          physical_safety_engaged: false,
          applied_seq: last.seq + 5,
          epoch: last.epoch,
          last_heartbeat: Math.floor(Date.now() / 1000),
          timeout_seconds: 3,
          updated_at: Math.floor(Date.now() / 1000),
          lease_protocol: 2,
        }),
        { qos: 1, retain: true },
      );
      await sleep(1500);
      expect((await api.state()).relay_confirmed_at).toBeNull();
    } finally {
      process.kill(node.child.pid as number, 'SIGCONT');
    }
    await api.post('/api/generator/stop');
  });
});
