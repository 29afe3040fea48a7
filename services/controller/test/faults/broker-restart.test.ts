import type { RunningBroker } from '@outpost/broker';
import type { ServiceProcess } from '@outpost/ui/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import {
  type clientWithToken,
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
import {
  type BusMessage,
  faultProxy,
  faultsReady,
  notifierEventIds,
  recordBroker,
  retainedOn,
  sleep,
  spawnNotifier,
} from './support.js';

/**
 * The broker killed in the middle of a run and started again empty (embedded aedes, no persistence),
 * with the controller, the relay node and the notifier all up. Whatever is on the new broker, the
 * services put there themselves. integration/relay-link.test.ts covers re-convergence of a run that
 * stays on; here the run is stopped over REST while the broker is away.
 *
 * The controller reaches the broker through a proxy that can stall its bytes: the heartbeat it sends
 * just before the broker dies leaves the controller but is never acknowledged, as happens to whatever
 * is in flight at a crash, only here every time. The proxy also holds the controller's reconnection
 * until the relay node and the notifier are back on the new broker (one of the two orders in which
 * they come back on their own), so what the controller sends on reconnecting reaches them.
 */
const INTERVAL_S = 1;
const haConfigTopic = 'homeassistant/device/outpost_controller_main/config';

type Api = ReturnType<typeof clientWithToken>;

describe('broker killed and restarted mid-run, every generator service up', () => {
  let broker: RunningBroker;
  let brokerPort = 0;
  let proxy: Awaited<ReturnType<typeof faultProxy>>;
  let node: Proc;
  let notifier: ServiceProcess;
  let controller: Proc;
  let api: Api;
  const dbs: TestDatabase[] = [];
  const nodeDir = tempDir('brk-node');
  const ctlDir = tempDir('brk-ctl');
  const notifierDir = tempDir('brk-notifier');
  /** Everything published on the restarted broker. */
  const afterRestart: BusMessage[] = [];
  let runId = 0;
  let retainedBefore = new Map<string, string>();

  const relayOnCount = () => node.logs().filter((l) => l.msg === 'relay ON').length;
  const brokerState = async () => ((await api.get('/health')).body as { broker: string }).broker;
  const eventsAfter = (name: string) =>
    afterRestart
      .filter((m) => m.topic === `${PREFIX}/controller/main/event/${name}`)
      .map((m) => JSON.parse(m.payload) as { event_id: string; data: Record<string, unknown> });
  const online = (svc: string) =>
    afterRestart.some((m) => m.topic === `${PREFIX}/${svc}/main/availability` && m.payload === 'online');

  beforeAll(async () => {
    if (!faultsReady) return;
    broker = await embeddedBroker();
    brokerPort = broker.port;
    proxy = await faultProxy(brokerPort);
    const ctlDb = await testDatabase();
    const notifierDb = await testDatabase();
    dbs.push(ctlDb, notifierDb);
    node = await spawnRelayNode({ mqttUrl: broker.url, dataDir: nodeDir.path });
    notifier = await spawnNotifier({
      mqttUrl: broker.url,
      dataDir: notifierDir.path,
      databaseUrl: notifierDb.url,
    });
    controller = await spawnController({
      mqttUrl: proxy.url,
      dataDir: ctlDir.path,
      databaseUrl: ctlDb.url,
      intervalSeconds: INTERVAL_S,
      relaynodeUrl: node.url,
      extra: { RELAYNODE_REQUEST_TIMEOUT_SECONDS: '1' },
    });
    api = await controllerClient(controller.url);
  });

  afterAll(async () => {
    await controller?.kill();
    await notifier?.stop();
    await node?.kill();
    await proxy?.close();
    await broker?.close();
    for (const d of dbs) await d.cleanup();
    nodeDir.remove();
    ctlDir.remove();
    notifierDir.remove();
  });

  it('a stop over REST during the outage holds: the relay node executes no stale ON after the restart', async (ctx) => {
    if (!faultsReady) return ctx.skip();
    await waitFor(async () => (await api.state()).slave_connected === true, 10_000);
    retainedBefore = await retainedOn(broker.url, [`${PREFIX}/#`, 'homeassistant/#']);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    const start = await api.post('/api/generator/start', { notes: 'broker restart' });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    runId = start.body.run_id as number;
    await waitFor(async () => (await nodeStatus(node.url)).relay_on, 3000);
    const onsBefore = relayOnCount();
    const onsLogIndex = node.logs().length;

    // The broker hangs, one heartbeat (relay ON) leaves the controller unacknowledged, then it dies.
    proxy.stall();
    await waitFor(() => proxy.swallowedContains(`${PREFIX}/relaynode/main/desired`), 3 * INTERVAL_S * 1000);
    proxy.hold();
    await broker.close();
    proxy.cut();
    const killedAt = performance.now();
    await waitFor(async () => (await brokerState()) !== 'connected', 3000);

    const stop = await api.post('/api/generator/stop', { reason: 'broker is down' });
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on, 1000);

    broker = await embeddedBroker(brokerPort);
    recordBroker(broker, afterRestart);
    await waitFor(() => online('relaynode') && online('notifier'), 5000);
    proxy.release();
    const releasedAt = performance.now();
    await waitFor(async () => (await brokerState()) === 'connected', 5000);
    // Two heartbeat periods after the controller is back: the relay must never have gone ON.
    let everOn = false;
    while (performance.now() - releasedAt < 2 * INTERVAL_S * 1000) {
      if ((await nodeStatus(node.url)).relay_on) everOn = true;
      await sleep(20);
    }
    const desiredOn = afterRestart
      .filter((m) => m.topic === `${PREFIX}/relaynode/main/desired`)
      .map((m) => ({
        ...(JSON.parse(m.payload) as { seq: number; issued_at: number; relay_on: boolean }),
        m,
      }))
      .filter((d) => d.relay_on);
    const logs = node.logs().slice(onsLogIndex);
    const when = (msg: string, from = 0) => {
      const l = logs.find((x) => x.msg === msg && Date.parse(String(x.time)) >= from);
      return l ? Date.parse(String(l.time)) : null;
    };
    const onAt = when('relay ON');
    const offAfter = onAt === null ? null : when('relay OFF', onAt);
    console.log(
      `broker restart: outage ${(releasedAt - killedAt).toFixed(0)} ms; the new broker carried ${desiredOn.length} desired relay_on=true ` +
        `(${desiredOn.map((d) => `seq ${d.seq}, issued ${d.m.wall - d.issued_at} ms before it arrived`).join('; ') || '-'}); ` +
        `'relay ON' executed ${relayOnCount() - onsBefore} time(s) after the stop` +
        (onAt === null ? '' : `, ON for ${(offAfter ?? Date.now()) - onAt} ms`),
    );
    expect(await api.state()).toMatchObject({ running: false });
    expect(everOn || relayOnCount() > onsBefore, 'the relay went ON again after the stop').toBe(false);
  }, 30_000);

  it('every service republishes its availability and retained state; HA discovery reappears', async (ctx) => {
    if (!faultsReady || runId === 0) return ctx.skip();
    // Sanity: what the first broker held, so the comparison below means something.
    for (const t of [haConfigTopic, `${PREFIX}/controller/main/state`, `${PREFIX}/relaynode/main/state`])
      expect(retainedBefore.has(t), `${t} retained before the restart`).toBe(true);
    await waitFor(() => online('controller'), 3000);
    const retained = await retainedOn(broker.url, [`${PREFIX}/#`, 'homeassistant/#']);
    const missing = [...retainedBefore.keys()].filter((t) => !retained.has(t) && !t.startsWith('$SYS'));
    console.log(
      `broker restart: ${retained.size} retained topics on the new broker; missing: ${missing.join(', ') || 'none'}`,
    );
    for (const svc of ['controller', 'relaynode', 'notifier'])
      expect(retained.get(`${PREFIX}/${svc}/main/availability`), svc).toBe('online');
    // The retained state is the current one: the stop made while the broker was away.
    expect(JSON.parse(retained.get(`${PREFIX}/controller/main/state`) ?? '{}')).toMatchObject({
      running: false,
      state: 'idle',
    });
    expect(JSON.parse(retained.get(`${PREFIX}/relaynode/main/state`) ?? '{}')).toMatchObject({
      relay_on: false,
    });
    expect(retained.has(`${PREFIX}/controller/main/stats`)).toBe(true);
    const ha = JSON.parse(retained.get(haConfigTopic) ?? '{}') as { cmps?: Record<string, unknown> };
    expect(Object.keys(ha.cmps ?? {})).toContain('running');
    expect(missing).toEqual([]);
  });

  it('events raised during the outage reach the bus and the notifier after the restart', async (ctx) => {
    if (!faultsReady || runId === 0) return ctx.skip();
    await waitFor(() => eventsAfter('generator_stopped').some((e) => e.data.run_id === runId), 5000);
    const stopped = eventsAfter('generator_stopped').find((e) => e.data.run_id === runId);
    expect(stopped?.data).toMatchObject({ reason: 'manual', details: 'broker is down' });
    expect(eventsAfter('generator.stopped.manual').some((e) => e.data.run_id === runId)).toBe(true);
    await waitFor(() => notifierEventIds(notifier).has(stopped?.event_id ?? ''), 5000);
    // The run is in the history once, closed by the stop made during the outage.
    const runs = (await api.get('/api/generator/history')).body as Record<string, unknown>[];
    expect(runs.filter((r) => r.id === runId)).toMatchObject([{ stop_reason: 'manual' }]);
  });
});
