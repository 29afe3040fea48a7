import { type RunningBroker, startBroker } from '@outpost/broker';
import { createLogger } from '@outpost/runtime';
import { ManualClock } from '@outpost/runtime/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET, startTestNode, TEST_LEASE_KEYS as LEASE_KEYS } from '@outpost/relay-node/testing';
import { ControllerEnv } from '../../src/config.js';
import { type RunningController, startController } from '../../src/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { controllerClient, JWT_SECRET, PASSWORD } from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A start while the MQTT broker is down (spec: "When the relay command fails, the next heartbeat
 * synchronizes the relay node"). Everything real and in this process: PostgreSQL, an embedded broker
 * that is closed and started again on its port, a relay node on mock hardware, the whole controller.
 * The controller and the node share one manual clock, so leases and heartbeats move only when the
 * test says; the broker connections reconnect on real time. The relay's output pin records every
 * level it drove: "never ON" is read there, not from a sampled status.
 */
const INTERVAL_S = 10;
const LEASE_MS = 3 * INTERVAL_S * 1000;

type Api = Awaited<ReturnType<typeof controllerClient>>;
type Node = Awaited<ReturnType<typeof startTestNode>>;

interface Stack {
  clock: ManualClock;
  node: Node;
  controller: RunningController;
  api: Api;
  brokerDown(): Promise<void>;
  brokerUp(): Promise<void>;
  /** Advances the shared clock and lets the timers' work settle. */
  advance(ms: number): Promise<void>;
  relay(): Promise<{ relay_on: boolean; armed: boolean; applied_seq: number | null }>;
  /** How many times the relay output was driven ON since `from` (an index into its writes). */
  onsSince(from: number): number;
  writes(): number;
  lastRun(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function startStack(withRelaynodeUrl: boolean): Promise<Stack> {
  const clock = new ManualClock(Date.now());
  let broker: RunningBroker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
  const port = broker.port;
  const db: TestDatabase = await testDatabase();
  const node = await startTestNode({
    clock,
    config: { mqtt: { url: broker.url, username: undefined, password: undefined, prefix: 'outpost' } },
  });
  const env = ControllerEnv.parse({
    DATABASE_URL: db.url,
    MQTT_URL: broker.url,
    JWT_SECRET,
    ADMIN_PASSWORD: PASSWORD,
    HOST: '127.0.0.1',
    PORT: '0',
    GPIO_MODE: 'mock',
    HEARTBEAT_INTERVAL_SECONDS: String(INTERVAL_S),
    RELAYNODE_API_SECRET: SECRET,
    LEASE_SIGNING_KEY: LEASE_KEYS.privateKey,
    ...(withRelaynodeUrl ? { RELAYNODE_URL: node.url } : {}),
  });
  const controller = await startController(env, {
    logger: createLogger({ service: 'controller', level: 'silent' }),
    clock,
  });
  const api = await controllerClient(controller.url);
  const health = async () => ((await api.get('/health')).body as { broker?: string }).broker;
  const relay = async () => {
    const res = await fetch(`${node.url}/api/relay/state`, { headers: { 'X-API-Key': SECRET } });
    return (await res.json()) as { relay_on: boolean; armed: boolean; applied_seq: number | null };
  };
  const pin = node.config.relayPin;
  const settle = () => new Promise((r) => setTimeout(r, 50));
  return {
    clock,
    node,
    controller,
    api,
    async brokerDown() {
      await broker.close();
      await waitFor(async () => (await health()) !== 'connected', 5000);
      await waitFor(() => node.bus?.connected === false, 5000);
    },
    async brokerUp() {
      broker = await startBroker({ port, wsPort: false, host: '127.0.0.1' });
      await waitFor(async () => (await health()) === 'connected', 5000);
      await waitFor(() => node.bus?.connected === true, 5000);
    },
    async advance(ms) {
      clock.advance(ms);
      await settle();
    },
    relay,
    onsSince: (from) =>
      node.pins
        .writes(pin)
        .slice(from)
        .filter((level) => level === 1).length,
    writes: () => node.pins.writes(pin).length,
    async lastRun() {
      return ((await api.get('/api/generator/history?limit=1')).body as Record<string, unknown>[])[0] ?? {};
    },
    async close() {
      await controller.close();
      await node.stop();
      await broker.close();
      await db.cleanup();
    },
  };
}

/** Connected and armed, the relay OFF: the starting point of each case. */
async function readyAndArmed(s: Stack): Promise<void> {
  await waitFor(async () => (await s.api.state()).slave_connected === true, 5000);
  expect((await s.api.post('/api/generator/arm')).status).toBe(200);
  await waitFor(async () => (await s.relay()).armed, 3000);
  expect((await s.relay()).relay_on).toBe(false);
}

/** The fields the start response always carries, unchanged by the broker's state. */
function expectStartShape(body: Record<string, unknown>): void {
  expect(body).toMatchObject({ success: true, trigger: 'manual', scheduled_stop_at: null });
  expect(typeof body.run_id).toBe('number');
  expect(typeof body.start_time).toBe('number');
  expect(typeof body.message).toBe('string');
}

describe('start while the broker is down, RELAYNODE_URL set', () => {
  let s: Stack;

  beforeAll(async () => {
    s = await startStack(true);
    await readyAndArmed(s);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('with the broker up the start is confirmed, as before', async () => {
    const start = await s.api.post('/api/generator/start');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expectStartShape(start.body);
    expect(start.body).toMatchObject({ relay_confirmed: true, message: 'Generator started' });
    await waitFor(async () => (await s.relay()).relay_on, 3000);
    expect((await s.api.post('/api/generator/stop')).status).toBe(200);
    await waitFor(async () => !(await s.relay()).relay_on, 3000);
  });

  it('answers 200 not confirmed, records the run and turns the relay ON over REST; a stop over REST turns it OFF', async () => {
    await s.brokerDown();
    const start = await s.api.post('/api/generator/start', { notes: 'broker down' });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expectStartShape(start.body);
    expect(start.body.relay_confirmed).toBe(false);
    expect(start.body.message).toMatch(/not yet confirmed/);
    expect(start.body.message).toMatch(/REST API/);
    await waitFor(async () => (await s.relay()).relay_on, 3000);

    const state = await s.api.state();
    expect(state).toMatchObject({ running: true, trigger: 'manual' });
    expect(await s.lastRun()).toMatchObject({
      id: start.body.run_id,
      trigger_type: 'manual',
      notes: 'broker down',
      stop_time: null,
    });

    // Stop, still without a broker: recorded, and the relay OFF goes over REST.
    const stop = await s.api.post('/api/generator/stop', { reason: 'done' });
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    expect(stop.body).toMatchObject({ run_id: start.body.run_id, stop_reason: 'manual' });
    await waitFor(async () => !(await s.relay()).relay_on, 3000);
    expect(await s.lastRun()).toMatchObject({ id: start.body.run_id, stop_reason: 'manual' });
    const writes = s.writes();

    // The broker returns: the heartbeat says OFF, nothing turns the relay back ON.
    await s.brokerUp();
    const applied = (await s.relay()).applied_seq ?? 0;
    await s.advance(INTERVAL_S * 1000);
    await waitFor(async () => ((await s.relay()).applied_seq ?? 0) > applied, 3000);
    expect(s.onsSince(writes)).toBe(0);
    expect((await s.relay()).relay_on).toBe(false);
  });

  it('a REST start keeps running once the broker is back within the lease', async () => {
    await s.brokerDown();
    const start = await s.api.post('/api/generator/start');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body.relay_confirmed).toBe(false);
    await waitFor(async () => (await s.relay()).relay_on, 3000);
    const writes = s.writes();
    await s.advance(INTERVAL_S * 1000);
    await s.brokerUp();
    // Heartbeats over MQTT renew the lease: well past the REST heartbeat's own expiry, still ON.
    for (let i = 0; i < 4; i++) await s.advance(INTERVAL_S * 1000);
    await waitFor(async () => (await s.api.state()).relay_node_relay_on === true, 3000);
    expect((await s.relay()).relay_on).toBe(true);
    expect(await s.api.state()).toMatchObject({ running: true });
    expect(s.onsSince(writes)).toBe(0);
    expect((await s.api.post('/api/generator/stop')).status).toBe(200);
    await waitFor(async () => !(await s.relay()).relay_on, 3000);
  });
});

describe('start while the broker is down, no RELAYNODE_URL', () => {
  let s: Stack;

  beforeAll(async () => {
    s = await startStack(false);
    await readyAndArmed(s);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('records the start; the relay goes ON only with the first heartbeat after the broker returns', async () => {
    await s.brokerDown();
    const writes = s.writes();
    const start = await s.api.post('/api/generator/start');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expectStartShape(start.body);
    expect(start.body.relay_confirmed).toBe(false);
    expect(start.body.message).toMatch(/first heartbeat after it reconnects/);
    expect(await s.lastRun()).toMatchObject({ id: start.body.run_id, stop_time: null });
    expect(await s.api.state()).toMatchObject({ running: true });

    // No path to the node yet: a heartbeat interval passes and the relay stays OFF.
    await s.advance(INTERVAL_S * 1000);
    await new Promise((r) => setTimeout(r, 300));
    expect(s.onsSince(writes)).toBe(0);

    await s.brokerUp();
    await s.advance(INTERVAL_S * 1000);
    await waitFor(async () => (await s.relay()).relay_on, 3000);
    await waitFor(async () => (await s.api.state()).relay_node_relay_on === true, 3000);
    expect(s.onsSince(writes)).toBe(1);
    expect(await s.lastRun()).toMatchObject({ id: start.body.run_id, stop_time: null });

    expect((await s.api.post('/api/generator/stop')).status).toBe(200);
    await waitFor(async () => !(await s.relay()).relay_on, 3000);
  });

  it('a start stopped before the broker returns never turns the relay ON', async () => {
    await s.brokerDown();
    const writes = s.writes();
    const start = await s.api.post('/api/generator/start');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body.relay_confirmed).toBe(false);
    const stop = await s.api.post('/api/generator/stop');
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    expect(stop.body).toMatchObject({ run_id: start.body.run_id, stop_reason: 'manual' });
    expect(await s.lastRun()).toMatchObject({ id: start.body.run_id, stop_reason: 'manual' });

    const applied = (await s.relay()).applied_seq ?? 0;
    await s.brokerUp();
    await s.advance(INTERVAL_S * 1000);
    // The node heard the controller again (a newer heartbeat applied), and it said OFF.
    await waitFor(async () => ((await s.relay()).applied_seq ?? 0) > applied, 3000);
    await s.advance(INTERVAL_S * 1000);
    await new Promise((r) => setTimeout(r, 200));
    expect(s.onsSince(writes)).toBe(0);
    expect(await s.relay()).toMatchObject({ relay_on: false, armed: true });
    expect(await s.api.state()).toMatchObject({ running: false });
  });

  it('a start whose lease ran out before the broker returned ends with comm_loss and never turns the relay ON', async () => {
    await s.brokerDown();
    const writes = s.writes();
    const start = await s.api.post('/api/generator/start');
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body.relay_confirmed).toBe(false);

    // The lease of the start runs out while the broker is away: the run is over.
    for (let t = 0; t <= LEASE_MS; t += INTERVAL_S * 1000) await s.advance(INTERVAL_S * 1000);
    await waitFor(async () => (await s.api.state()).running === false, 3000);
    const run = await s.lastRun();
    expect(run).toMatchObject({ id: start.body.run_id, stop_reason: 'comm_loss' });
    expect(typeof run.stop_time).toBe('number');

    const applied = (await s.relay()).applied_seq ?? 0;
    await s.brokerUp();
    await s.advance(INTERVAL_S * 1000);
    await waitFor(async () => ((await s.relay()).applied_seq ?? 0) > applied, 3000);
    await s.advance(INTERVAL_S * 1000);
    await new Promise((r) => setTimeout(r, 200));
    expect(s.onsSince(writes)).toBe(0);
    expect((await s.relay()).relay_on).toBe(false);
    expect(await s.api.state()).toMatchObject({ running: false });
  });
});
