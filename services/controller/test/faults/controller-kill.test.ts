import type { RunningBroker } from '@outpost/broker';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import {
  built,
  clientWithToken,
  controllerClient,
  embeddedBroker,
  nodeStatus,
  PREFIX,
  type Proc,
  spawnController,
  spawnRelayNode,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';
import { sleep } from './support.js';

/**
 * The controller SIGKILLed in the middle of a run, then started again on the same database: what
 * integration/failsafe-kill.test.ts (the relay drops in time) does not look at. The boot reset closes
 * the orphaned run with a stop reason, the fail_safe policy disarms and says so on the bus, and every
 * run ever started is in the history, closed.
 */
const INTERVAL_S = 1;
const KILLS = 3;

type Api = ReturnType<typeof clientWithToken>;
interface BusEvent {
  name: string;
  at: number;
  event_id: string;
  data: Record<string, unknown>;
}

describe('controller killed mid-run', () => {
  let broker: RunningBroker;
  let node: Proc;
  let controller: Proc | null = null;
  let tdb: TestDatabase;
  let watcher: MqttClient | null = null;
  const events: BusEvent[] = [];
  const nodeDir = tempDir('kill-node');
  const ctlDir = tempDir('kill-ctl');

  beforeAll(async () => {
    if (!built) return;
    broker = await embeddedBroker();
    node = await spawnRelayNode({ mqttUrl: broker.url, dataDir: nodeDir.path });
    tdb = await testDatabase();
    watcher = mqtt.connect(broker.url, { reconnectPeriod: 100 });
    watcher.on('message', (topic, payload) => {
      const body = JSON.parse(payload.toString()) as { event_id: string; data: Record<string, unknown> };
      events.push({ name: topic.split('/')[4] as string, at: performance.now(), ...body });
    });
    await watcher.subscribeAsync(`${PREFIX}/controller/main/event/#`, { qos: 1 });
  });

  afterAll(async () => {
    watcher?.end(true);
    await controller?.kill('SIGKILL');
    await node?.kill();
    await broker?.close();
    await tdb?.cleanup();
    nodeDir.remove();
    ctlDir.remove();
  });

  const boot = () =>
    spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: tdb.url,
      intervalSeconds: INTERVAL_S,
      extra: { BOOT_ARMING_POLICY: 'fail_safe' },
    });
  const history = async (api: Api) => {
    const res = await api.get('/api/generator/history?limit=500');
    return {
      runs: res.body as {
        id: number;
        start_time: number;
        stop_time: number | null;
        stop_reason: string | null;
      }[],
      total: Number(res.headers.get('x-total-count')),
    };
  };
  /** A start on a fresh process is taken before its broker connection is up (relay_confirmed false); a 503 while it boots is asked again. */
  const start = async (api: Api) => {
    const deadline = Date.now() + 10_000;
    let res = await api.post('/api/generator/start', { notes: 'kill test' });
    while (res.status === 503 && Date.now() < deadline) {
      await sleep(25);
      res = await api.post('/api/generator/start', { notes: 'kill test' });
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.run_id as number;
  };
  const relayOnCount = () => node.logs().filter((l) => l.msg === 'relay ON').length;

  it(`closes each orphaned run with a stop reason, disarms under fail_safe and loses no run (${KILLS} kills)`, async (ctx) => {
    if (!built) return ctx.skip();
    controller = await boot();
    let api: Api = await controllerClient(controller.url);
    const before = await history(api);
    const started: number[] = [];
    const bootMs: number[] = [];

    for (let cycle = 0; cycle < KILLS; cycle++) {
      expect((await api.post('/api/generator/arm')).status).toBe(200);
      const runId = await start(api);
      started.push(runId);
      await waitFor(async () => (await nodeStatus(node.url)).relay_on, 5000);
      // A different moment of the heartbeat period each time.
      await sleep(Math.floor(Math.random() * INTERVAL_S * 1000));
      const killedAt = performance.now();
      const killedAtSec = Math.ceil(Date.now() / 1000);
      await controller.kill('SIGKILL');

      controller = await boot();
      bootMs.push(Math.round(performance.now() - killedAt));
      api = clientWithToken(controller.url, api.token);

      // The boot reset says what it did, in the log the spec names.
      const reset = controller.logs().find((l) => l.msg === 'SYSTEM_BOOT_RESET');
      expect(reset).toMatchObject({
        boot_arming_policy: 'fail_safe',
        relay_disarmed_by_policy: true,
        was_running: true,
        orphan_runs_closed: [runId],
      });
      expect(await api.state()).toMatchObject({
        running: false,
        state: 'idle',
        current_run_id: null,
        armed: false,
        manual_disarm_active: true,
      });
      // On the bus: the disarm notice and the orphan's stop, once the new process reached the broker.
      await waitFor(() => events.some((e) => e.name === 'boot_disarmed_failsafe' && e.at > killedAt), 5000);
      await waitFor(
        () =>
          events.some(
            (e) => e.name === 'generator_stopped' && e.data.run_id === runId && e.data.reason === 'error',
          ),
        5000,
      );
      expect(events.some((e) => e.name === 'generator.stopped.error' && e.data.run_id === runId)).toBe(true);
      // The node follows the first heartbeat: disarmed, relay OFF.
      await waitFor(async () => {
        const s = await nodeStatus(node.url);
        return !s.armed && !s.relay_on;
      }, 5000);

      const orphan = (await history(api)).runs.find((r) => r.id === runId);
      expect(orphan, `run ${runId} missing from the history`).toBeDefined();
      expect(orphan?.stop_reason).toBe('error');
      // Stopped at the last moment the old process was known alive: not before the start, not after the kill.
      expect(orphan?.stop_time).toBeGreaterThanOrEqual(orphan?.start_time ?? Number.POSITIVE_INFINITY);
      expect(orphan?.stop_time).toBeLessThanOrEqual(killedAtSec);
    }

    const after = await history(api);
    console.log(
      `controller kill: ${KILLS} kills, restarted and booted in ${bootMs.join(', ')} ms; history ${before.total} -> ${after.total} runs`,
    );
    expect(after.total).toBe(before.total + KILLS);
    for (const id of started) {
      const run = after.runs.find((r) => r.id === id);
      expect(run?.stop_time, `run ${id}`).not.toBeNull();
      expect(run?.stop_reason, `run ${id}`).toBe('error');
    }
    expect(after.runs.filter((r) => r.stop_time === null)).toEqual([]);
    // One disarm notice per boot that found the relay armed (an event may be redelivered, never lost).
    const notices = new Set(events.filter((e) => e.name === 'boot_disarmed_failsafe').map((e) => e.event_id));
    expect(notices.size).toBe(KILLS);
    // The relay went ON once per start and never again after a restart.
    expect(relayOnCount()).toBe(KILLS);
    expect((await nodeStatus(node.url)).relay_on).toBe(false);
  }, 80_000);
});
