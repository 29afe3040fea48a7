import type { RunningBroker } from '@outpost/broker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import {
  built,
  controllerClient,
  embeddedBroker,
  nodeStatus,
  type Proc,
  SECRET,
  spawnController,
  spawnRelayNode,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';

/** The relay node's running-feedback input, through its retained state, confirms and ends runs. */
describe('running feedback from the relay node', () => {
  let broker: RunningBroker;
  let node: Proc;
  let controller: Proc;
  let tdb: TestDatabase;
  const nodeDir = tempDir('feedback-node');
  const ctlDir = tempDir('feedback-ctl');

  beforeAll(async () => {
    if (!built) return;
    broker = await embeddedBroker();
    node = await spawnRelayNode({
      mqttUrl: broker.url,
      dataDir: nodeDir.path,
      extra: { RUNNING_FEEDBACK_PIN: 'GPIO5' },
    });
    tdb = await testDatabase();
    controller = await spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: tdb.url,
      intervalSeconds: 1,
      extra: { START_CONFIRM_SECONDS: '5' },
    });
  }, 60_000);

  afterAll(async () => {
    await controller?.kill();
    await node?.kill();
    await broker?.close();
    await tdb?.cleanup();
    nodeDir.remove();
    ctlDir.remove();
  });

  const feedback = (running: boolean) =>
    fetch(`${node.url}/api/dev/running-feedback`, {
      method: 'POST',
      headers: { 'X-API-Key': SECRET, 'content-type': 'application/json' },
      body: JSON.stringify({ running }),
    });

  it('confirms the start, and its fall mid-run drops the relay with unexpected_stop', async (ctx) => {
    if (!built) return ctx.skip();
    const api = await controllerClient(controller.url);
    const put = await fetch(`${controller.url}/api/health/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ running_feedback_source: 'relaynode' }),
    });
    expect(put.status).toBe(200);
    await waitFor(async () => (await api.get('/api/health')).body.running_feedback === false);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    expect((await api.post('/api/generator/start', {})).status).toBe(200);
    await waitFor(async () => (await nodeStatus(node.url)).relay_on);
    expect((await feedback(true)).status).toBe(200);
    await waitFor(async () => (await api.get('/api/health')).body.run_confirmed_at !== null);
    // Well past START_CONFIRM_SECONDS: a confirmed run keeps going.
    await new Promise((r) => setTimeout(r, 5500));
    expect((await api.state()).running).toBe(true);

    expect((await feedback(false)).status).toBe(200);
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on);
    const history = (await api.get('/api/generator/history')).body as { stop_reason: string }[];
    expect(history[0]?.stop_reason).toBe('unexpected_stop');
    expect((await api.state()).health_alarm).toBe('unexpected_stop');
  }, 40_000);
});
