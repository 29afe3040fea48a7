import type { RunningBroker } from '@outpost/broker';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { gateProxy } from '../helpers/gate-proxy.js';
import {
  built,
  controllerClient,
  embeddedBroker,
  nodeStatus,
  PREFIX,
  type Proc,
  relaySeenOn,
  spawnController,
  spawnRelayNode,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';

const INTERVAL_MS = 1000;
const LEASE_MS = 3 * INTERVAL_MS;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Only the relay node loses the broker (its link runs through a proxy that the test cuts), while the
 * controller's heartbeats still reach the broker. The node fails safe one lease after the last
 * heartbeat it applied; the controller must close the run then, so the node hears OFF when it returns.
 */
describe('relay node alone cut off from the broker (real processes)', () => {
  let broker: RunningBroker;
  let proxy: Awaited<ReturnType<typeof gateProxy>>;
  let node: Proc;
  let controller: Proc;
  let api: Awaited<ReturnType<typeof controllerClient>>;
  let tdb: TestDatabase;
  let watcher: MqttClient;
  const desired: { seq: number; issued_at: number; relay_on: boolean }[] = [];
  const nodeDir = tempDir('partition-node');
  const ctlDir = tempDir('partition-ctl');

  beforeAll(async () => {
    if (!built) return;
    broker = await embeddedBroker();
    proxy = await gateProxy({ host: '127.0.0.1', port: broker.port });
    proxy.open();
    tdb = await testDatabase();
    node = await spawnRelayNode({ mqttUrl: proxy.url, dataDir: nodeDir.path });
    controller = await spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: tdb.url,
      intervalSeconds: INTERVAL_MS / 1000,
    });
    api = await controllerClient(controller.url);
    watcher = await mqtt.connectAsync(broker.url);
    watcher.on('message', (_topic, payload) => desired.push(JSON.parse(payload.toString())));
    await watcher.subscribeAsync(`${PREFIX}/relaynode/main/desired`, { qos: 1 });
  }, 60_000);

  afterAll(async () => {
    await watcher?.endAsync();
    await controller?.kill();
    await node?.kill();
    await proxy?.close();
    await broker?.close();
    await tdb?.cleanup();
    nodeDir.remove();
    ctlDir.remove();
  });

  it('the run closes with comm_loss while the node is away, and the returning node never turns ON', async (ctx) => {
    if (!built) return ctx.skip();
    await waitFor(async () => (await api.state()).slave_connected === true, 5000);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    expect((await api.post('/api/generator/start')).status).toBe(200);
    await waitFor(async () => (await nodeStatus(node.url)).relay_on, 3000);
    const onsBefore = node.logs().filter((l) => l.msg === 'relay ON').length;

    proxy.cut();
    const cutAt = Date.now();
    await waitFor(async () => (await nodeStatus(node.url)).failsafe_triggered, LEASE_MS + 1500);
    expect((await nodeStatus(node.url)).relay_on).toBe(false);
    // Still cut off: only the controller's own reasoning about the lease can close the run.
    await waitFor(async () => (await api.state()).running === false, 1500);
    expect(Date.now() - cutAt).toBeLessThan(LEASE_MS + INTERVAL_MS + 1500);
    const [run] = (await api.get('/api/generator/history?limit=1')).body as Record<string, unknown>[];
    expect(run).toMatchObject({ stop_reason: 'comm_loss' });
    // Every heartbeat issued after the node's failsafe says OFF.
    const failsafeBy = cutAt + LEASE_MS;
    await sleep(INTERVAL_MS + 200);
    const after = desired.filter((d) => d.issued_at > failsafeBy);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((d) => !d.relay_on)).toBe(true);

    proxy.open();
    await waitFor(async () => !(await nodeStatus(node.url)).failsafe_triggered, 5000);
    expect(await relaySeenOn(node.url, 2 * INTERVAL_MS)).toBe(false);
    expect(node.logs().filter((l) => l.msg === 'relay ON').length).toBe(onsBefore);
    await waitFor(async () => (await api.state()).slave_connected === true, 5000);
  }, 30_000);
});
