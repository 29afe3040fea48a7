import type { RunningBroker } from '@outpost/broker';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { startReceiver } from '../helpers/receiver.js';
import {
  built,
  controllerClient,
  embeddedBroker,
  nodeStatus,
  PREFIX,
  type Proc,
  relaySeenOn,
  setEpo,
  spawnController,
  spawnRelayNode,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';

const INTERVAL_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Api = Awaited<ReturnType<typeof controllerClient>>;

/**
 * One broker, one relay node and one controller (heartbeat every second, RELAYNODE_URL set), all real
 * processes; the steps run in order and each leaves the stack idle and connected for the next.
 */
describe('controller ↔ relay node link (real processes)', () => {
  let broker: RunningBroker;
  let brokerPort = 0;
  let node: Proc;
  let controller: Proc;
  let api: Api;
  let tdb: TestDatabase;
  let watcher: MqttClient;
  const events: { name: string; at: number; data: Record<string, unknown> }[] = [];
  const nodeStates: { applied_seq: number | null; epoch: string | null; relay_on: boolean }[] = [];
  const desired: { seq: number; epoch: string; relay_on: boolean }[] = [];
  /** When the controller's retained state first showed EPO engaged (performance.now()). */
  let epoSeenAt: number | null = null;
  const nodeDir = tempDir('link-node');
  const ctlDir = tempDir('link-ctl');

  const relayOnCount = () => node.logs().filter((l) => l.msg === 'relay ON').length;
  const state = () => api.state();
  const connectedNow = async () => (await state()).slave_connected === true;
  const brokerState = async () => ((await api.get('/health')).body as { broker: string }).broker;
  const brokerUp = async () => (await brokerState()) === 'connected';

  beforeAll(async () => {
    if (!built) return;
    broker = await embeddedBroker();
    brokerPort = broker.port;
    tdb = await testDatabase();
    node = await spawnRelayNode({ mqttUrl: broker.url, dataDir: nodeDir.path });
    controller = await spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: tdb.url,
      intervalSeconds: INTERVAL_MS / 1000,
      relaynodeUrl: node.url,
      extra: { RELAYNODE_REQUEST_TIMEOUT_SECONDS: '1' },
    });
    api = await controllerClient(controller.url);
    watcher = mqtt.connect(broker.url, { reconnectPeriod: 100 });
    watcher.on('message', (topic, payload) => {
      const parts = topic.split('/');
      const body = JSON.parse(payload.toString());
      if (parts[3] === 'event')
        events.push({ name: parts[4] as string, at: performance.now(), data: body.data ?? body });
      else if (parts[1] === 'relaynode' && parts[3] === 'state') nodeStates.push(body);
      else if (parts[1] === 'relaynode' && parts[3] === 'desired') desired.push(body);
      else if (parts[1] === 'controller' && parts[3] === 'state' && body.slave_physical_safety_engaged)
        epoSeenAt ??= performance.now();
    });
    await watcher.subscribeAsync(
      [
        `${PREFIX}/controller/main/event/#`,
        `${PREFIX}/controller/main/state`,
        `${PREFIX}/relaynode/main/state`,
        `${PREFIX}/relaynode/main/desired`,
      ],
      { qos: 1 },
    );
  });

  afterAll(async () => {
    watcher?.end(true);
    await controller?.kill();
    await node?.kill();
    await broker?.close();
    await tdb?.cleanup();
    nodeDir.remove();
    ctlDir.remove();
  });

  const startRun = async () => {
    const res = await api.post('/api/generator/start');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await waitFor(async () => (await nodeStatus(node.url)).relay_on, 3000);
    // The controller reports what the node says its relay is.
    await waitFor(async () => (await state()).relay_node_relay_on === true, 3000);
  };
  const lastRun = async () =>
    ((await api.get('/api/generator/history?limit=1')).body as Record<string, unknown>[])[0];

  it('connects: the node applies our epoch and slave_connected turns true', async (ctx) => {
    if (!built) return ctx.skip();
    await waitFor(connectedNow, 5000);
    expect(events.some((e) => e.name === 'slave_connected') || (await state()).slave_connected).toBe(true);
    expect((await state()).missed_heartbeat_count).toBe(0);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    await waitFor(async () => (await nodeStatus(node.url)).armed, 3000);
  });

  it('proxies /api/relaynode/* to the node over MQTT request/response', async (ctx) => {
    if (!built) return ctx.skip();
    const schedule = { enabled: true, day: 'monday', hour: 3, minute: 30 };
    const set = await api.post('/api/relaynode/reboot-schedule', schedule);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await api.get('/api/relaynode/reboot-schedule')).body).toEqual(schedule);
    const bad = await api.post('/api/relaynode/reboot-schedule', { ...schedule, hour: 24 });
    expect(bad.status).toBe(422);
    expect(String(bad.body.detail)).toContain('hour');

    const receiver = await startReceiver();
    try {
      const target = receiver.url.replace('http://', 'json://');
      const urls = await api.post('/api/relaynode/notifications', { notifier_urls: [target] });
      expect(urls.status, JSON.stringify(urls.body)).toBe(200);
      const cool = await api.post('/api/relaynode/notifications/settings', {
        failsafe_cooldown_minutes: 5,
        restored_cooldown_minutes: 7,
      });
      expect(cool.status, JSON.stringify(cool.body)).toBe(200);
      const read = (await api.get('/api/relaynode/notifications')).body;
      expect(read).toMatchObject({ failsafe_cooldown_minutes: 5, restored_cooldown_minutes: 7 });
      const test = await api.post('/api/relaynode/notifications/test');
      expect(test.status, JSON.stringify(test.body)).toBe(200);
      await waitFor(() => receiver.requests.length > 0, 3000);
      expect(receiver.requests[0]?.body).toContain('Test notification');
      // Leave the node without notifier URLs for the rest of the run (failsafes below).
      expect((await api.post('/api/relaynode/notifications', { notifier_urls: [] })).status).toBe(200);
    } finally {
      await receiver.close();
    }
  });

  it('EPO at the node: start refused 409 within 100 ms of the debounce, events both ways', async (ctx) => {
    if (!built) return ctx.skip();
    epoSeenAt = null;
    await setEpo(node.url, true); // answers once the node's debounce has seen the contact
    const debounced = performance.now();
    try {
      // The controller's retained state (published on every change) says when it learned it.
      await waitFor(() => epoSeenAt !== null, 1000);
      const learnedMs = (epoSeenAt as unknown as number) - debounced;
      const refused = await api.post('/api/generator/start');
      console.log(
        `EPO: controller refuses starts ${learnedMs.toFixed(0)} ms after the debounce (409 answered at ${(performance.now() - debounced).toFixed(0)} ms)`,
      );
      // From the moment the state shows it, every start is refused (the gate reads that state).
      expect(learnedMs).toBeLessThanOrEqual(100);
      expect(refused.status).toBe(409);
      expect(String(refused.body.detail)).toMatch(/EPO/);
      await waitFor(() => events.some((e) => e.name === 'hardware_safety_engaged_relaynode'), 5000);
    } finally {
      await setEpo(node.url, false);
    }
    await waitFor(async () => (await state()).slave_physical_safety_engaged === false, 2000);
    await waitFor(() => events.some((e) => e.name === 'hardware_safety_released_relaynode'), 5000);
    await startRun();
    expect((await api.post('/api/generator/stop', { reason: 'epo test done' })).status).toBe(200);
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on, 3000);
  });

  it('a paused controller: the node fails safe, the run closes with comm_loss, no ON is re-executed', async (ctx) => {
    if (!built) return ctx.skip();
    await startRun();
    const onsBefore = relayOnCount();
    controller.child.kill('SIGSTOP');
    try {
      await waitFor(async () => (await nodeStatus(node.url)).failsafe_triggered, 3 * INTERVAL_MS + 1500);
      expect((await nodeStatus(node.url)).relay_on).toBe(false);
      await sleep(500);
    } finally {
      controller.child.kill('SIGCONT');
    }
    expect(await relaySeenOn(node.url, 2 * INTERVAL_MS)).toBe(false);
    expect(relayOnCount()).toBe(onsBefore);
    await waitFor(async () => (await state()).running === false, 3000);
    expect(await lastRun()).toMatchObject({ stop_reason: 'comm_loss' });
    await waitFor(async () => !(await nodeStatus(node.url)).failsafe_triggered, 3000);
  });

  it('broker partition longer than the lease: failsafe at the node, run closed comm_loss, no ON after it heals', async (ctx) => {
    if (!built) return ctx.skip();
    await startRun();
    const onsBefore = relayOnCount();
    await broker.close();
    await waitFor(async () => (await nodeStatus(node.url)).failsafe_triggered, 3 * INTERVAL_MS + 1500);
    await waitFor(async () => (await state()).running === false, 2000);
    expect(await lastRun()).toMatchObject({ stop_reason: 'comm_loss' });
    broker = await embeddedBroker(brokerPort);
    await waitFor(brokerUp, 5000);
    expect(await relaySeenOn(node.url, 2 * INTERVAL_MS)).toBe(false);
    expect(relayOnCount()).toBe(onsBefore);
    await waitFor(async () => !(await nodeStatus(node.url)).failsafe_triggered, 3000);
    await waitFor(connectedNow, 3000);
  });

  it('broker restarted mid-run: re-converges within one heartbeat, no stale ON executed', async (ctx) => {
    if (!built) return ctx.skip();
    await startRun();
    await waitFor(connectedNow, 3000);
    const onsBefore = relayOnCount();
    const epoch = desired.at(-1)?.epoch;
    const appliedBefore = Math.max(
      ...nodeStates.filter((n) => n.epoch === epoch).map((n) => n.applied_seq ?? 0),
    );
    await broker.close();
    broker = await embeddedBroker(brokerPort);
    const restarted = performance.now();
    await waitFor(() => watcher.connected, 3000);
    // Both processes reconnect on their own (1 s retry); measure from the controller's reconnect.
    await waitFor(brokerUp, 5000);
    const reconnected = performance.now();
    let latestSeq = 0;
    // Converged: the node applied a heartbeat the controller sent after the restart.
    await waitFor(() => {
      const applied = nodeStates.filter((n) => n.epoch === epoch && (n.applied_seq ?? 0) > appliedBefore);
      latestSeq = applied.at(-1)?.applied_seq ?? 0;
      return applied.length > 0;
    }, 3 * INTERVAL_MS);
    const convergedMs = performance.now() - reconnected;
    await waitFor(connectedNow, 2 * INTERVAL_MS);
    console.log(
      `broker restart: node applied seq ${latestSeq} ${convergedMs.toFixed(0)} ms after the controller was seen reconnected (${(performance.now() - restarted).toFixed(0)} ms after the broker restarted)`,
    );
    expect(convergedMs).toBeLessThanOrEqual(INTERVAL_MS + 200);
    const st = await state();
    expect(st.running).toBe(true);
    expect((await nodeStatus(node.url)).relay_on).toBe(true);
    // The relay never went OFF and back ON (no re-executed ON), and the node's applied seq never went back.
    expect(relayOnCount()).toBe(onsBefore);
    const seqs = nodeStates.filter((s) => s.epoch === desired.at(-1)?.epoch).map((s) => s.applied_seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect((await api.post('/api/generator/stop')).status).toBe(200);
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on, 3000);
  });

  it('broker down: relaynode proxy 503, a stop and a start reach the relay over REST', async (ctx) => {
    if (!built) return ctx.skip();
    await startRun();
    await broker.close();
    await waitFor(async () => (await brokerState()) !== 'connected', 3000);
    const proxied = await api.get('/api/relaynode/reboot-schedule');
    expect(proxied.status).toBe(503);
    expect(String(proxied.body.detail)).toMatch(/broker/i);
    const stopAt = performance.now();
    const stop = await api.post('/api/generator/stop');
    expect(stop.status).toBe(200);
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on, 3000);
    const offMs = performance.now() - stopAt;
    console.log(`stop with the broker down: relay OFF over REST after ${offMs.toFixed(0)} ms`);
    // Well inside the lease: the REST path, not the failsafe, dropped it.
    expect(offMs).toBeLessThan(3 * INTERVAL_MS - 500);
    expect((await nodeStatus(node.url)).failsafe_triggered).toBe(false);
    // A start is recorded and its ON goes over REST too, not confirmed (start-broker-down.test.ts).
    const start = await api.post('/api/generator/start');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body.relay_confirmed).toBe(false);
    await waitFor(async () => (await nodeStatus(node.url)).relay_on, 3000);
    expect((await api.post('/api/generator/stop')).status).toBe(200);
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on, 3000);
    broker = await embeddedBroker(brokerPort);
    await waitFor(brokerUp, 5000);
    await waitFor(connectedNow, 5000);
  });

  it('relay node killed: disconnected within 2 intervals, a start meanwhile alarms and ends, no stale ON on return', async (ctx) => {
    if (!built) return ctx.skip();
    await startRun();
    await waitFor(connectedNow, 3000);
    const nodePort = node.port;
    const killedAt = performance.now();
    await node.kill('SIGKILL');
    await waitFor(async () => !(await connectedNow()), 2 * INTERVAL_MS);
    console.log(
      `relay node killed: controller disconnected after ${(performance.now() - killedAt).toFixed(0)} ms`,
    );
    await waitFor(() => events.some((e) => e.name === 'slave_disconnected' && e.at >= killedAt), 3000);
    // Nobody answers the administration request: 504 after the bound.
    const timedOut = await api.get('/api/relaynode/reboot-schedule');
    expect(timedOut.status).toBe(504);
    expect(String(timedOut.body.detail)).toMatch(/did not answer/);
    // A start while the node is away is never answered confirmed: the relay is OFF out there. It raises
    // relay_not_confirmed, and the run ends with comm_loss when its lease would have (3 intervals here,
    // before 2 intervals + 5 s), so a node that comes back later never gets a stale ON.
    expect((await api.post('/api/generator/stop')).status).toBe(200);
    const awayStart = await api.post('/api/generator/start');
    expect(awayStart.status).toBe(200);
    expect(awayStart.body).toMatchObject({ relay_confirmed: false, relay_status: 'pending' });
    await waitFor(async () => (await state()).running === false, 3 * INTERVAL_MS + 2000);
    const ended = await state();
    expect(ended.health_alarm).toBe('relay_not_confirmed');
    // The state shows the stop at once; the run record is closed by the write that follows it.
    await waitFor(async () => (await lastRun())?.stop_reason === 'comm_loss', 3000);
    await waitFor(() => events.some((e) => e.name === 'relay_not_confirmed' && e.at >= killedAt), 3000);
    expect(String(events.find((e) => e.name === 'relay_not_confirmed')?.data.details)).toMatch(
      /not connected|no state/,
    );

    // The node may connect, and the controller say so, before spawnRelayNode sees it listening.
    const spawnedAt = performance.now();
    node = await spawnRelayNode({ mqttUrl: broker.url, dataDir: nodeDir.path, port: nodePort });
    await waitFor(connectedNow, 2 * INTERVAL_MS + 500);
    await sleep(2 * INTERVAL_MS);
    expect((await nodeStatus(node.url)).relay_on).toBe(false);
    await waitFor(() => events.some((e) => e.name === 'slave_connected' && e.at >= spawnedAt), 3000);
    // One connect, not up-down-up on the state the killed process left retained.
    const since = events.filter((e) => e.at >= spawnedAt && e.name.startsWith('slave_')).map((e) => e.name);
    expect(since).toEqual(['slave_connected']);
    // A new start is confirmed, and clears the alarm.
    const again = await api.post('/api/generator/start');
    expect(again.body).toMatchObject({ relay_confirmed: true, relay_status: 'confirmed' });
    expect((await nodeStatus(node.url)).relay_on).toBe(true);
    const confirmed = await state();
    expect(confirmed.relay_confirmed_at).toEqual(expect.any(Number));
    expect(confirmed.health_alarm).toBeNull();
    expect((await api.post('/api/generator/stop')).status).toBe(200);
  });
});
