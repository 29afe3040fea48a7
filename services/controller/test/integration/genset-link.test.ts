import type { RunningBroker } from '@outpost/broker';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { gensetReport } from '../helpers/genset-fixtures.js';
import {
  built,
  controllerClient,
  embeddedBroker,
  PREFIX,
  type Proc,
  spawnController,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The controller process following the relay node's retained genset report, and the node's
 * availability: a node gone offline leaves its last report on the broker, which must not go on
 * speaking for the module.
 */
describe("the genset report and the relay node's availability", () => {
  let broker: RunningBroker;
  let controller: Proc;
  let tdb: TestDatabase;
  let node: mqtt.MqttClient;
  const ctlDir = tempDir('genset-ctl');

  beforeAll(async () => {
    if (!built) return;
    broker = await embeddedBroker();
    // Stands in for the relay node's own publishes: its birth and will, and its genset report.
    node = await mqtt.connectAsync(broker.url, {
      clientId: `genset-node-${process.pid}`,
      reconnectPeriod: 0,
    });
    await node.publishAsync(`${PREFIX}/relaynode/main/availability`, 'online', { qos: 1, retain: true });
    tdb = await testDatabase();
    controller = await spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: tdb.url,
      intervalSeconds: 1,
    });
  }, 60_000);

  afterAll(async () => {
    await node?.endAsync();
    await controller?.kill();
    await broker?.close();
    await tdb?.cleanup();
    ctlDir.remove();
  });

  const publish = (topic: string, payload: string) =>
    node.publishAsync(`${PREFIX}/relaynode/main/${topic}`, payload, { qos: 1, retain: true });

  it('takes the report while the node is online, and none of it once the node is offline', async (ctx) => {
    if (!built) return ctx.skip();
    const api = await controllerClient(controller.url);
    const genset = async () => (await api.get('/api/genset')).body;
    await publish(
      'genset',
      JSON.stringify(gensetReport({ mode: 'manual', engine_state: 'running', running: true })),
    );
    await waitFor(async () => (await genset())?.mode === 'manual');
    expect((await api.get('/api/generator/state')).body.genset).toMatchObject({
      stale: false,
      running: true,
    });

    await publish('availability', 'offline');
    await waitFor(async () => (await genset())?.stale === true);
    expect(await genset()).toMatchObject({ running: null, mode: null, warnings: ['genset_unreachable'] });
    expect((await api.get('/api/health')).body).toMatchObject({ genset_mode: null });
    // A report left on the broker is not news from the module while the node is away.
    await publish('genset', JSON.stringify(gensetReport({ mode: 'stop' })));
    await new Promise((r) => setTimeout(r, 300));
    expect((await genset()).stale).toBe(true);

    await publish('availability', 'online');
    await publish('genset', JSON.stringify(gensetReport({ mode: 'auto' })));
    await waitFor(async () => (await genset())?.mode === 'auto');
  });
});
