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
 * A two-host upgrade where the controller goes first: the relay node of the earlier version sends an
 * unsigned state (its updated_at still in milliseconds). The controller acts on no report the node did
 * not sign, so it reads nothing from it, says why, and never calls a start confirmed; such a node
 * refuses the signed leases anyway and keeps the relay OFF until it is upgraded.
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

  it('ignores its unsigned state (even an engaged EPO), raises relay_node_report_unverified, confirms no start', async (ctx) => {
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
    await waitFor(async () => (await api.state()).health_alarm === 'relay_node_report_unverified', 5000);
    expect((await api.state()).slave_physical_safety_engaged).toBe(false);
    const start = await api.post('/api/generator/start');
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ relay_confirmed: false, relay_status: 'pending' });
    await waitFor(
      async () => /earlier version/.test(String((await api.state()).relay_unconfirmed_reason)),
      5000,
    );
    await earlierNode.endAsync();
  });
});
