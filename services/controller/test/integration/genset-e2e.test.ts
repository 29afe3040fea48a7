import type { RunningBroker } from '@outpost/broker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dse4520Running,
  type FakeDse,
  startFakeDse,
  words,
} from '../../../relay-node/test/genset/fake-dse.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import {
  built,
  controllerClient,
  embeddedBroker,
  nodeStatus,
  type Proc,
  spawnController,
  spawnRelayNode,
  tempDir,
} from '../helpers/stack.js';

/**
 * The generator's own controller end to end, every hop a real process: a DSE 4520 MkII on pymodbus's
 * server, the relay node polling it over Modbus TCP and publishing its genset report, the broker, and
 * the controller taking its running feedback from the module.
 */

const UNIT = 10;
/** GenComm page 8 Named Alarm Conditions (39425 on): 0x1111 is four inactive alarms; 0x1311 puts alarm 5 in shutdown. */
const NO_ALARMS = { 39425: 0x1111, 39426: 0x1111, 39427: 0x1111 };
const SHUTDOWN_ALARM = { 39426: 0x1311 };

/** The engine at rest: status 1408 stopped, no speed, frequency, power or load. */
const STOPPED = {
  1408: 0,
  1024: 0,
  1030: 0,
  1031: 0,
  ...words({
    1052: { v: 0, width: 's32' },
    1056: { v: 0, width: 's32' },
    1536: { v: 0, width: 's32' },
  }),
  1558: 0,
};
const RUNNING = { 1408: 3, 1024: 350, 1030: 1500, 1031: 500 };
const COOLING_DOWN = { 1408: 4 };
const runTime = (seconds: number) => words({ 1798: { v: seconds, width: 'u32' } });

/** Polls every 100 ms: the controller's API limits a client to 30 requests a second. */
async function waitFor(pred: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the generator's own controller from the module to the controller", () => {
  let broker: RunningBroker;
  let dse: FakeDse;
  let node: Proc;
  let controller: Proc;
  let tdb: TestDatabase;
  let api: Awaited<ReturnType<typeof controllerClient>>;
  const nodeDir = tempDir('genset-e2e-node');
  const ctlDir = tempDir('genset-e2e-ctl');

  beforeAll(async () => {
    if (!built) return;
    dse = await startFakeDse({
      unit: UNIT,
      // Auto, stopped, 64 % fuel, 1234 h; page 16 flag for function 33 (the telemetry stop) set.
      registers: { ...dse4520Running(), ...STOPPED, ...NO_ALARMS, 4098: 0x4000 },
    });
    broker = await embeddedBroker();
    node = await spawnRelayNode({
      mqttUrl: broker.url,
      dataDir: nodeDir.path,
      extra: {
        GENSET_TRANSPORT: 'tcp',
        GENSET_HOST: '127.0.0.1',
        GENSET_PORT: String(dse.port),
        GENSET_UNIT_ID: String(UNIT),
        GENSET_POLL_SECONDS: '0.2',
        GENSET_TIMEOUT_MS: '300',
        GENSET_STALE_SECONDS: '2',
      },
    });
    tdb = await testDatabase();
    controller = await spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: tdb.url,
      intervalSeconds: 1,
      extra: { START_CONFIRM_SECONDS: '5' },
    });
    api = await controllerClient(controller.url);
    const put = await fetch(`${controller.url}/api/health/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ running_feedback_source: 'genset' }),
    });
    expect(put.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await controller?.kill();
    await node?.kill();
    await dse?.close();
    await broker?.close();
    await tdb?.cleanup();
    nodeDir.remove();
    ctlDir.remove();
  });

  const genset = async () => (await api.get('/api/genset')).body;
  const health = async () => (await api.get('/api/health')).body;
  const relayOn = async () => (await nodeStatus(node.url)).relay_on;
  const history = async () => (await api.get('/api/generator/history')).body as { stop_reason: string }[];
  const start = async () => {
    await api.post('/api/generator/arm');
    return api.post('/api/generator/start', {});
  };
  /** A start the module then follows: the relay closes, and the engine runs as the module starts it. */
  const startRun = async () => {
    expect((await start()).status).toBe(200);
    await waitFor(relayOn);
    dse.registers(RUNNING);
    await waitFor(async () => (await health()).run_confirmed_at !== null);
  };

  it("shows the module's readings: Auto, stopped, fuel and run time", async (ctx) => {
    if (!built) return ctx.skip();
    await waitFor(async () => (await genset())?.stale === false);
    expect(await genset()).toMatchObject({
      transport: 'tcp',
      reachable: true,
      mode: 'auto',
      engine_state: 'stopped',
      running: false,
      identity: { model: '4520 MkII' },
      instruments: { fuel_level_percent: 64 },
      accumulated: { engine_run_time_s: 4_442_400 },
    });
    expect((await api.state()).genset).toMatchObject({ stale: false, mode: 'auto', running: false });
    expect(await health()).toMatchObject({
      running_feedback: false,
      genset_mode: 'auto',
      genset_warnings: [],
    });
  });

  it('the module in Manual raises the warning on /health, and back in Auto clears it', async (ctx) => {
    if (!built) return ctx.skip();
    dse.registers({ 772: 2 });
    await waitFor(async () => (await health()).genset_warnings?.includes('genset_not_in_auto'));
    expect((await health()).genset_mode).toBe('manual');
    const audit = (await api.get('/api/audit?limit=50')).body as { action: string }[];
    expect(audit.map((a) => a.action)).toContain('genset.genset_not_in_auto');
    dse.registers({ 772: 1 });
    await waitFor(async () => (await health()).genset_warnings?.length === 0);
  });

  it('a start closes the relay, the module confirms the run, and its run time and fuel are followed', async (ctx) => {
    if (!built) return ctx.skip();
    expect((await start()).status).toBe(200);
    await waitFor(relayOn);
    // The relay closed; the engine is not yet seen running.
    expect((await health()).run_confirmed_at).toBeNull();
    dse.registers(RUNNING);
    await waitFor(async () => (await health()).run_confirmed_at !== null);
    expect(await genset()).toMatchObject({ engine_state: 'running', running: true });
    expect((await api.state()).running).toBe(true);

    dse.registers({ ...runTime(4_442_400 + 3600), 1027: 58 });
    await waitFor(async () => (await genset()).accumulated.engine_run_time_s === 4_446_000);
    expect((await genset()).instruments.fuel_level_percent).toBe(58);
    // Well past START_CONFIRM_SECONDS: a run the module confirms keeps going.
    await new Promise((r) => setTimeout(r, 5500));
    expect((await api.state()).running).toBe(true);
  }, 30_000);

  it('a stop opens the relay and writes the telemetry stop with its complement; cooling down is shown', async (ctx) => {
    if (!built) return ctx.skip();
    const before = dse.writes().length;
    expect((await api.post('/api/generator/stop')).status).toBe(200);
    await waitFor(async () => !(await relayOn()));
    await waitFor(() => dse.writes().length > before);
    expect(dse.writes().slice(before)).toEqual([{ address: 4104, values: [35733, 29802] }]);
    expect((await history())[0]?.stop_reason).not.toBe('genset_shutdown');

    dse.registers(COOLING_DOWN);
    await waitFor(async () => (await genset()).engine_state === 'cooling_down');
    expect((await api.state()).genset).toMatchObject({ engine_state: 'cooling_down' });
    dse.registers(STOPPED);
    await waitFor(async () => (await genset()).engine_state === 'stopped');
  }, 20_000);

  it('a shutdown alarm ends the run with genset_shutdown, and no start until it clears', async (ctx) => {
    if (!built) return ctx.skip();
    await startRun();
    dse.registers(SHUTDOWN_ALARM);
    await waitFor(async () => !(await api.state()).running);
    await waitFor(async () => !(await relayOn()));
    expect((await history())[0]?.stop_reason).toBe('genset_shutdown');
    dse.registers(STOPPED);
    const refused = await start();
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('shutdown alarm standing');
    expect(await relayOn()).toBe(false);

    dse.registers(NO_ALARMS);
    await waitFor(async () => (await genset()).alarms.level === 'none');
    await startRun();
  }, 30_000);

  it('the module gone mid-run: values unknown, genset_unreachable, and the relay stays on', async (ctx) => {
    if (!built) return ctx.skip();
    const runs = (await history()).length;
    await dse.stop();
    await waitFor(async () => (await genset()).stale === true, 8000);
    expect(await genset()).toMatchObject({
      running: null,
      mode: null,
      engine_state: null,
      instruments: { fuel_level_percent: null },
      warnings: ['genset_unreachable'],
    });
    expect((await health()).genset_warnings).toContain('genset_unreachable');
    // Silence is not a stop: the run and the relay go on under the controller's lease.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await relayOn()).toBe(true);
    expect((await api.state()).running).toBe(true);
    expect((await history()).length).toBe(runs);
  }, 20_000);
});
