import type { RunningBroker } from '@outpost/broker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import {
  built,
  controllerClient,
  embeddedBroker,
  type Proc,
  spawnController,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WRITE_S = 1;

/** The engine-hour meter across a SIGKILL: at most one write interval of engine time is lost. */
describe('engine-hour meter across a SIGKILL', () => {
  let broker: RunningBroker;
  let controller: Proc | null = null;
  let tdb: TestDatabase;
  const dir = tempDir('hours-kill');

  beforeAll(async () => {
    if (!built) return;
    broker = await embeddedBroker();
    tdb = await testDatabase();
  });

  afterAll(async () => {
    await controller?.kill('SIGKILL');
    await broker?.close();
    await tdb?.cleanup();
    dir.remove();
  });

  const boot = () =>
    spawnController({
      mqttUrl: broker.url,
      dataDir: dir.path,
      databaseUrl: tdb.url,
      intervalSeconds: 1,
      extra: { HOUR_METER_WRITE_SECONDS: String(WRITE_S) },
    });

  it('loses at most one HOUR_METER_WRITE_SECONDS of a run, and never counts the time it was dead', async (ctx) => {
    if (!built) return ctx.skip();
    controller = await boot();
    let api = await controllerClient(controller.url);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    await waitFor(async () => (await api.post('/api/generator/start', {})).status === 200, 10_000);
    await sleep(3500);
    const before = (await api.get('/api/health')).body.engine_hours as number;
    expect(before * 3600).toBeGreaterThan(3);
    await controller.kill('SIGKILL');
    await sleep(2000);
    controller = await boot();
    api = await controllerClient(controller.url);
    const after = (await api.get('/api/health')).body.engine_hours as number;
    expect(after * 3600).toBeLessThanOrEqual(before * 3600);
    // One write interval, plus the time the kill itself took to land after the reading.
    expect(after * 3600).toBeGreaterThanOrEqual(before * 3600 - WRITE_S - 0.5);
    await sleep(1500);
    expect((await api.get('/api/health')).body.engine_hours).toBe(after);
  });
});
