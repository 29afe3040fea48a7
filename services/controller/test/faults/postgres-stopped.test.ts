import type { RunningBroker } from '@outpost/broker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  built,
  type clientWithToken,
  controllerClient,
  embeddedBroker,
  nodeStatus,
  type Proc,
  spawnController,
  spawnRelayNode,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';
import { type OwnPostgres, ownPostgres, sleep } from './support.js';

/**
 * The controller's PostgreSQL server stopped in the middle of a run, with real processes: our own
 * server (never the machine's), a broker, the relay node, the controller. gateway/db-outage.test.ts
 * covers the domain in-process (connections refused by the database); here the server process is gone,
 * and the questions are what the relay node does, what each kind of request answers, and what the
 * history holds once the server is back.
 */
const INTERVAL_S = 1;

type Api = ReturnType<typeof clientWithToken>;

describe('PostgreSQL stopped mid-run (real server process)', () => {
  let pg: OwnPostgres | null = null;
  let broker: RunningBroker;
  let node: Proc;
  let controller: Proc;
  let api: Api;
  const nodeDir = tempDir('pgstop-node');
  const ctlDir = tempDir('pgstop-ctl');

  const health = async () =>
    (await api.get('/health')).body as {
      database: string;
      pending_database_writes: number;
    };

  beforeAll(async () => {
    if (!built) return;
    pg = await ownPostgres();
    broker = await embeddedBroker();
    node = await spawnRelayNode({ mqttUrl: broker.url, dataDir: nodeDir.path });
    controller = await spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: pg.url,
      intervalSeconds: INTERVAL_S,
    });
    api = await controllerClient(controller.url);
  });

  afterAll(async () => {
    // The server first: a controller closing against a stopped server would wait on its pool.
    await pg?.start().catch(() => undefined);
    await controller?.kill();
    await node?.kill();
    await broker?.close();
    await pg?.destroy();
    nodeDir.remove();
    ctlDir.remove();
  });

  let runId = 0;
  /** A write that may be taken and queued (200) rather than refused (503). */
  const WRITE_QUEUED_OR_503 = 'POST /api/generator/disarm';

  it('stop turns the relay off and answers while the server is down', async (ctx) => {
    if (!built || !pg) return ctx.skip();
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    let start = await api.post('/api/generator/start', { notes: 'pg outage' });
    for (let i = 0; start.status === 503 && i < 200; i++) {
      await sleep(25);
      start = await api.post('/api/generator/start', { notes: 'pg outage' });
    }
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    runId = start.body.run_id as number;
    await waitFor(async () => (await nodeStatus(node.url)).relay_on, 5000);
    await sleep(1200); // a run with a duration worth recording

    await pg.stop('fast');
    await waitFor(async () => (await health()).database === 'disconnected', 5000);

    // Relay OFF always works: the stop answers and the node drops the relay, database or not.
    const stopAt = performance.now();
    const stop = await api.post('/api/generator/stop', { reason: 'database is down' });
    const answeredMs = performance.now() - stopAt;
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    expect(stop.body).toMatchObject({ run_id: runId, stop_reason: 'manual' });
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on, 3000);
    const offMs = performance.now() - stopAt;
    console.log(
      `PostgreSQL stopped: stop answered in ${answeredMs.toFixed(0)} ms, relay OFF at the node after ${offMs.toFixed(0)} ms`,
    );
    expect(offMs).toBeLessThan(2000);
    expect(await api.state()).toMatchObject({ running: false, state: 'idle' });
    expect((await health()).pending_database_writes).toBeGreaterThan(0);
  });

  it('while it is down, what needs the database answers 503 with a detail, never 500', async (ctx) => {
    if (!built || !pg || runId === 0) return ctx.skip();
    const answers: Record<string, { status: number; body: Record<string, unknown> }> = {
      'GET /api/generator/history': await api.get('/api/generator/history'),
      'GET /api/generator/stats': await api.get('/api/generator/stats'),
      'GET /api/schedules': await api.get('/api/schedules'),
      'POST /api/generator/start': await api.post('/api/generator/start', {}),
      'POST /api/schedules': await api.post('/api/schedules', {
        name: 'written while the database is down',
        days_of_week: [1],
        start_time: '03:00',
        duration_minutes: 30,
      }),
      [WRITE_QUEUED_OR_503]: await api.post('/api/generator/disarm'),
    };
    const summary = Object.entries(answers).map(([k, v]) => `${k} -> ${v.status}`);
    console.log(`PostgreSQL stopped: ${summary.join('; ')}`);
    // The refused start left the relay OFF; a disarm taken (queued) reached the node.
    expect((await nodeStatus(node.url)).relay_on).toBe(false);
    if (answers[WRITE_QUEUED_OR_503]?.status === 200)
      await waitFor(async () => !(await nodeStatus(node.url)).armed, 3000);
    const wrong = Object.entries(answers)
      .filter(([what, res]) => {
        if (what === WRITE_QUEUED_OR_503 && res.status === 200) return false; // queued
        return res.status !== 503 || typeof res.body.detail !== 'string';
      })
      .map(([what, res]) => `${what} -> ${res.status} ${JSON.stringify(res.body)}`);
    expect(wrong).toEqual([]);
  });

  it('while it is down, a Prometheus scrape still answers with the live gauges', async (ctx) => {
    if (!built || !pg || runId === 0) return ctx.skip();
    const res = await fetch(`${controller.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^controller_generator_running(\{[^}]*\})? 0$/m);
    expect(text).toMatch(/^controller_relaynode_connected(\{[^}]*\})? 1$/m);
  });

  it('once the server is back, the stopped run is recorded and the state reconciles', async (ctx) => {
    if (!built || !pg || runId === 0) return ctx.skip();
    await pg.start();
    const back = performance.now();
    // Queued writes are retried every 5 s.
    await waitFor(async () => (await health()).pending_database_writes === 0, 15_000);
    console.log(`PostgreSQL back: queued writes committed after ${(performance.now() - back).toFixed(0)} ms`);
    expect((await health()).database).toBe('connected');
    const history = await api.get('/api/generator/history');
    expect(history.status).toBe(200);
    const runs = history.body as Record<string, unknown>[];
    const run = runs.find((r) => r.id === runId);
    expect(run).toMatchObject({ stop_reason: 'manual', stop_note: 'database is down', notes: 'pg outage' });
    expect(run?.duration_seconds as number).toBeGreaterThanOrEqual(1);
    expect(runs.filter((r) => r.stop_time === null)).toEqual([]);
    // The schedule refused during the outage does not exist; the generator works again.
    expect((await api.get('/api/schedules')).body).toEqual([]);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    const again = await api.post('/api/generator/start', {});
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await waitFor(async () => (await nodeStatus(node.url)).relay_on, 3000);
    expect((await api.post('/api/generator/stop')).status).toBe(200);
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on, 3000);
    expect((await api.get('/api/generator/history')).headers.get('x-total-count')).toBe('2');
  }, 30_000);
});
