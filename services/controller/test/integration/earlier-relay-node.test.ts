import type { RunningBroker } from '@outpost/broker';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
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
 * A two-host upgrade where the controller goes first: the relay node of the earlier version still
 * sends its state's updated_at in milliseconds. The controller must still read that state, above all
 * an engaged EPO, until the node is upgraded too.
 */
describe('controller beside a relay node of an earlier version', () => {
  let broker: RunningBroker;
  let controller: Proc;
  let tdb: TestDatabase;
  const dir = tempDir('earlier-node-ctl');

  beforeAll(async () => {
    if (!built) return;
    broker = await embeddedBroker();
    tdb = await testDatabase();
    controller = await spawnController({
      mqttUrl: broker.url,
      dataDir: dir.path,
      databaseUrl: tdb.url,
      intervalSeconds: 1,
    });
  });

  afterAll(async () => {
    await controller?.kill();
    await broker?.close();
    await tdb?.cleanup();
    dir.remove();
  });

  it('reads its millisecond updated_at and refuses a start while its EPO is engaged', async (ctx) => {
    if (!built) return ctx.skip();
    const api = await controllerClient(controller.url);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    const earlierNode = await mqtt.connectAsync(broker.url);
    await earlierNode.publishAsync(
      `${PREFIX}/relaynode/main/state`,
      JSON.stringify({
        relay_on: false,
        armed: true,
        failsafe_triggered: false,
        physical_safety_engaged: true,
        applied_seq: null,
        epoch: null,
        last_heartbeat: null,
        timeout_seconds: 30,
        updated_at: Date.now(),
      }),
      { qos: 1, retain: true },
    );
    await waitFor(async () => (await api.state()).slave_physical_safety_engaged === true, 5000);
    const refused = await api.post('/api/generator/start');
    expect(refused.status).toBe(409);
    expect(String(refused.body.detail)).toMatch(/EPO/);
    await earlierNode.endAsync();
  });
});
