import { freePort, type ServiceProcess } from '@outpost/ui/testing';
import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import {
  clientWithToken,
  controllerClient,
  PREFIX,
  type Proc,
  spawnController,
  spawnRelayNode,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';
import {
  faultsReady,
  type OwnPostgres,
  ownPostgres,
  relayState,
  sleep,
  spawnBrokerProcess,
} from './support.js';

/**
 * A power cut in the middle of a run: the broker, the controller and the relay node SIGKILLed in the
 * same instant, and our own PostgreSQL server crashed (an immediate stop, recovered from its WAL on
 * the next start), while the controller is busy writing. Then everything starts again on the same
 * data: the relay node first, alone, then the controller.
 */
const INTERVAL_S = 1;

type Api = ReturnType<typeof clientWithToken>;
interface NodeState {
  relay_on: boolean;
  armed: boolean;
  applied_seq: number | null;
  epoch: string | null;
}

describe.each(['fail_safe', 'preserve_state'] as const)('power cut mid-run (%s)', (policy) => {
  const dirs = { broker: tempDir('cut-broker'), node: tempDir('cut-node'), ctl: tempDir('cut-ctl') };
  const procs: { kill(): Promise<void> }[] = [];
  let pg: OwnPostgres | null = null;

  afterAll(async () => {
    for (const p of procs) await p.kill().catch(() => undefined);
    await pg?.destroy();
    for (const d of Object.values(dirs)) d.remove();
  });

  const track = <T extends Proc | ServiceProcess>(p: T): T => {
    procs.push({ kill: () => ('logs' in p ? p.kill('SIGKILL') : p.kill()) });
    return p;
  };

  it('the relay node comes back OFF and disarmed until the first heartbeat; the database opens and the orphaned run is closed', async (ctx) => {
    if (!faultsReady) return ctx.skip();
    const server = await ownPostgres();
    pg = server;
    const databaseUrl = server.url;
    const mqttPort = await freePort();
    const mqttUrl = `mqtt://127.0.0.1:${mqttPort}`;
    const boot = () =>
      spawnController({
        mqttUrl,
        dataDir: dirs.ctl.path,
        databaseUrl,
        intervalSeconds: INTERVAL_S,
        extra: { BOOT_ARMING_POLICY: policy },
      });

    let broker = track(await spawnBrokerProcess(mqttPort, dirs.broker.path));
    let node = track(await spawnRelayNode({ mqttUrl, dataDir: dirs.node.path }));
    let controller = track(await boot());
    let api: Api = await controllerClient(controller.url);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    let start = await api.post('/api/generator/start', { notes: 'power cut' });
    for (let i = 0; start.status === 503 && i < 400; i++) {
      await sleep(25);
      start = await api.post('/api/generator/start', { notes: 'power cut' });
    }
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const runId = start.body.run_id as number;
    await waitFor(async () => (await relayState(node.url)).relay_on, 5000);

    // Writes in flight when the power goes: every one the controller acknowledged must survive.
    const acked: number[] = [];
    let writing = true;
    const writer = async (w: number) => {
      for (let i = 0; writing; i++) {
        const res = await api
          .post('/api/schedules', {
            name: `power cut ${w}-${i}`,
            days_of_week: [0],
            start_time: '04:00',
            duration_minutes: 30,
            enabled: false,
          })
          .catch(() => null);
        if (res?.status === 201) acked.push(res.body.id as number);
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await waitFor(() => acked.length >= 8, 10_000);

    // The cut: all three in the same tick, then the database server.
    for (const p of [broker.proc, controller.child, node.child]) p.kill('SIGKILL');
    await Promise.all([broker.kill(), controller.kill('SIGKILL'), node.kill('SIGKILL')]);
    await server.stop('immediate');
    writing = false;
    await Promise.all(writers);

    // Power back. The broker (empty), then the relay node alone.
    await server.start();
    broker = track(await spawnBrokerProcess(mqttPort, dirs.broker.path));
    const seen: NodeState[] = [];
    const watcher = await mqtt.connectAsync(mqttUrl, { reconnectPeriod: 0 });
    watcher.on('message', (_t, payload) => seen.push(JSON.parse(payload.toString()) as NodeState));
    await watcher.subscribeAsync(`${PREFIX}/relaynode/main/state`, { qos: 1 });
    try {
      node = track(await spawnRelayNode({ mqttUrl, dataDir: dirs.node.path }));
      await waitFor(() => seen.length > 0, 5000);
      // Alone, with no controller: OFF, disarmed, nothing applied, on its REST API and on the bus.
      await sleep(1000);
      expect(await relayState(node.url)).toMatchObject({ relay_on: false, armed: false, applied_seq: null });
      expect(seen.at(-1)).toMatchObject({ relay_on: false, armed: false, applied_seq: null });

      const bootAt = performance.now();
      controller = track(await boot());
      const bootMs = performance.now() - bootAt;
      api = clientWithToken(controller.url, api.token);
      expect(controller.logs().some((l) => l.msg === 'database ready')).toBe(true);
      const reset = controller.logs().find((l) => l.msg === 'SYSTEM_BOOT_RESET');
      expect(reset).toMatchObject({
        boot_arming_policy: policy,
        was_running: true,
        orphan_runs_closed: [runId],
        relay_disarmed_by_policy: policy === 'fail_safe',
      });

      // The first valid heartbeat: the node takes the controller's epoch; the relay stays OFF, armed as
      // the policy says (preserve_state re-arms through the sync).
      await waitFor(async () => (await relayState(node.url)).applied_seq !== null, 5000);
      await waitFor(async () => (await relayState(node.url)).armed === (policy === 'preserve_state'), 3000);
      expect((await relayState(node.url)).relay_on).toBe(false);
      const beforeFirst = seen.filter((s) => s.applied_seq === null);
      expect(beforeFirst.length).toBeGreaterThan(0);
      for (const s of beforeFirst) expect(s).toMatchObject({ relay_on: false, armed: false });
      expect(seen.every((s) => !s.relay_on)).toBe(true);
      expect(node.logs().filter((l) => l.msg === 'relay ON')).toEqual([]);

      // The database: readable, consistent, nothing acknowledged lost, the orphan closed.
      const state = await api.state();
      expect(state).toMatchObject({
        running: false,
        current_run_id: null,
        armed: policy === 'preserve_state',
      });
      const history = await api.get('/api/generator/history');
      expect(history.status).toBe(200);
      const runs = history.body as Record<string, unknown>[];
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ id: runId, stop_reason: 'error', notes: 'power cut' });
      const schedules = await api.get('/api/schedules');
      expect(schedules.status).toBe(200);
      const ids = new Set((schedules.body as unknown as { id: number }[]).map((s) => s.id));
      const lost = acked.filter((id) => !ids.has(id));
      console.log(
        `power cut (${policy}): controller back in ${bootMs.toFixed(0)} ms; ${acked.length} schedule writes acknowledged before the cut, ${ids.size} present after, lost: ${lost.length}; PostgreSQL started by crash recovery`,
      );
      expect(lost).toEqual([]);
      // The server really went down as in a crash, not a clean shutdown.
      expect(server.log()).toMatch(/not properly shut down|automatic recovery in progress/);

      // And it works again.
      if (policy === 'fail_safe') expect((await api.post('/api/generator/arm')).status).toBe(200);
      const again = await api.post('/api/generator/start', {});
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      await waitFor(async () => (await relayState(node.url)).relay_on, 3000);
      expect((await api.post('/api/generator/stop')).status).toBe(200);
      await waitFor(async () => !(await relayState(node.url)).relay_on, 3000);
    } finally {
      await watcher.endAsync(true);
    }
  }, 80_000);
});
