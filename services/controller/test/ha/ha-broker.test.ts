import { spawn } from 'node:child_process';
import { makeUser, type RunningBroker, startBroker } from '@outpost/broker';
import { generator } from '@outpost/contracts';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  built,
  controllerClient,
  LEASE_KEYS,
  nodeStatus,
  PREFIX,
  type Proc,
  RELAYNODE_MAIN,
  SECRET,
  spawnController,
  tempDir,
} from '../helpers/stack.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';
import { gensetReport } from '../helpers/genset-fixtures.js';
import { homeassistant } from '@outpost/contracts';

const { DeviceDiscovery } = homeassistant;

const PW = { controller: 'ctl-pass-1', relaynode: 'node-pass-1', automation: 'auto-pass-1' };
const CONFIG_TOPIC = 'homeassistant/device/outpost_controller_main/config';

interface Discovery {
  cmps: {
    generator: { payload_on: string; payload_off: string };
    disarm: { payload_press: string };
  } & Record<string, Record<string, unknown>>;
  availability: { topic: string }[];
  availability_mode: string;
}

interface Msg {
  topic: string;
  payload: string;
  retain: boolean;
}

/** The relay node as a real process with its own broker account. */
async function spawnNode(mqttUrl: string, dataDir: string): Promise<{ url: string; kill(): Promise<void> }> {
  const child = spawn(process.execPath, [RELAYNODE_MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      RELAYNODE_API_SECRET: SECRET,
      CONTROLLER_PUBLIC_KEY: LEASE_KEYS.publicKey,
      MOCK_HAT_MODE: 'true',
      DEV_MODE: 'true',
      HARDWARE_SAFETY_ENABLED: 'true',
      MQTT_URL: mqttUrl,
      MQTT_USERNAME: 'relaynode',
      MQTT_PASSWORD: PW.relaynode,
      MQTT_TOPIC_PREFIX: PREFIX,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  child.stdout?.on('data', (b: Buffer) => lines.push(...b.toString().split('\n')));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitFor(() => lines.some((l) => l.includes('relay node listening')), 30_000);
  const url = JSON.parse(lines.find((l) => l.includes('relay node listening')) as string).url as string;
  return {
    url,
    async kill() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A client that behaves like Home Assistant: subscribes to homeassistant/#, follows the state. */
async function haClient(url: string): Promise<{ client: MqttClient; msgs: Msg[] }> {
  const client = await mqtt.connectAsync(url, {
    username: 'automation',
    password: PW.automation,
    reconnectPeriod: 0,
  });
  const msgs: Msg[] = [];
  client.on('message', (topic, payload, packet) =>
    msgs.push({ topic, payload: payload.toString(), retain: packet.retain }),
  );
  await client.subscribeAsync(
    ['homeassistant/#', `${PREFIX}/controller/main/state`, `${PREFIX}/controller/main/stats`],
    {
      qos: 1,
    },
  );
  return { client, msgs };
}

describe.skipIf(!built)('controller Home Assistant discovery on a broker with accounts', () => {
  let broker: RunningBroker;
  let node: Awaited<ReturnType<typeof spawnNode>>;
  let controller: Proc;
  let ha: Awaited<ReturnType<typeof haClient>>;
  const nodeDir = tempDir('ha-node');
  const ctlDir = tempDir('ha-ctl');
  let tdb: TestDatabase | undefined;

  const latestState = () => {
    const s = ha.msgs.filter((m) => m.topic === `${PREFIX}/controller/main/state`).at(-1);
    return s ? generator.GeneratorState.parse(JSON.parse(s.payload)) : null;
  };
  const configs = () => ha.msgs.filter((m) => m.topic === CONFIG_TOPIC);
  const discovery = () => JSON.parse(configs()[0]?.payload as string) as Discovery;
  const send = (payload: string) =>
    ha.client.publishAsync(`${PREFIX}/controller/main/set`, payload, { qos: 1 });
  const startController = (extra: Record<string, string> = {}) =>
    spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: (tdb as TestDatabase).url,
      intervalSeconds: 1,
      extra: {
        MQTT_USERNAME: 'controller',
        MQTT_PASSWORD: PW.controller,
        BOOT_ARMING_POLICY: 'fail_safe',
        ...extra,
      },
    });
  /** The config the broker keeps for the device, as a subscriber arriving now gets it. */
  const retainedConfig = async (): Promise<Record<string, Record<string, unknown>>> => {
    const late = await haClient(broker.url);
    try {
      await waitFor(() => late.msgs.some((m) => m.topic === CONFIG_TOPIC), 5000);
      const m = late.msgs.find((x) => x.topic === CONFIG_TOPIC) as Msg;
      expect(m.retain).toBe(true);
      return (JSON.parse(m.payload) as { cmps: Record<string, Record<string, unknown>> }).cmps;
    } finally {
      await late.client.endAsync();
    }
  };
  /** The commands the device's shown entities send (a select sends every override). */
  const offered = (cmps: Record<string, Record<string, unknown>>) =>
    Object.values(cmps)
      .filter((c) => Object.keys(c).length > 1)
      .flatMap((c) => {
        const payloads = [c.payload_on, c.payload_off, c.payload_press].filter((p) => typeof p === 'string');
        const names: string[] = payloads.map((p) =>
          generator.automationCommandOf(generator.ControllerSetCommand.parse(JSON.parse(p as string))),
        );
        if (c.p === 'select') names.push('override_force_run', 'override_force_stop', 'override_disable');
        return names;
      })
      .sort();

  beforeAll(async () => {
    broker = await startBroker({
      port: 0,
      wsPort: false,
      host: '127.0.0.1',
      prefix: PREFIX,
      users: {
        users: [
          makeUser('controller', 'controller', 'main', PW.controller),
          makeUser('relaynode', 'relaynode', 'main', PW.relaynode),
          makeUser('automation', 'automation', '*', PW.automation),
        ],
      },
    });
    node = await spawnNode(broker.url, nodeDir.path);
    tdb = await testDatabase();
    controller = await startController();
    ha = await haClient(broker.url);
    await waitFor(() => configs().length > 0 && latestState()?.slave_connected === true, 20_000);
  }, 60_000);

  afterAll(async () => {
    await ha?.client.endAsync();
    await controller?.kill();
    await node?.kill();
    await broker?.close();
    await tdb?.cleanup();
    nodeDir.remove();
    ctlDir.remove();
  });

  it('keeps the device config retained, and it validates against HA’s documented keys', async () => {
    // A late subscriber (HA restarting without a birth message) still gets the device from the broker.
    const late = await haClient(broker.url);
    try {
      await waitFor(() => late.msgs.some((m) => m.topic === CONFIG_TOPIC), 5000);
      const retained = late.msgs.find((m) => m.topic === CONFIG_TOPIC) as Msg;
      expect(retained.retain).toBe(true);
      const parsed = DeviceDiscovery.safeParse(JSON.parse(retained.payload));
      expect(parsed.error).toBeUndefined();
      expect(JSON.parse(retained.payload)).toEqual(discovery());
    } finally {
      await late.client.endAsync();
    }
    expect(discovery().availability.map((a) => a.topic)).toEqual([`${PREFIX}/controller/main/availability`]);
  });

  it('sends the whole device again when HA announces itself online', async () => {
    const before = configs().length;
    await ha.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await waitFor(() => configs().length > before, 5000);
    const again = configs().at(-1) as Msg;
    expect(JSON.parse(again.payload)).toEqual(discovery());
    // 'offline' is HA going away: nothing to republish.
    const count = configs().length;
    await ha.client.publishAsync('homeassistant/status', 'offline', { qos: 1 });
    await ha.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await waitFor(() => configs().length === count + 1, 5000);
  });

  it('the start switch through the automation account respects arming, then runs the generator', async () => {
    const cmps = discovery().cmps;
    // Disarmed: the switch's ON payload is refused by the controller's gates.
    await send(cmps.disarm.payload_press);
    await waitFor(() => latestState()?.armed === false, 5000);
    await send(cmps.generator.payload_on);
    await waitFor(() => controller.logs().some((l) => l.command === 'start' && l.level === 40), 5000);
    expect(latestState()?.running).toBe(false);
    expect((await nodeStatus(node.url)).relay_on).toBe(false);

    // Arming is a person's decision (AUTOMATION_COMMANDS leaves it out): not offered to HA, refused if
    // sent anyway, done over REST.
    expect(JSON.stringify(cmps)).not.toContain('\\"command\\":\\"arm\\"');
    await send(JSON.stringify({ command: 'arm' }));
    await waitFor(() => controller.logs().some((l) => l.command === 'arm' && l.level === 40), 5000);
    expect(latestState()?.armed).toBe(false);
    const api = await controllerClient(controller.url);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    await waitFor(() => latestState()?.armed === true, 5000);
    await send(cmps.generator.payload_on);
    await waitFor(() => latestState()?.running === true, 5000);
    await waitFor(async () => (await nodeStatus(node.url)).relay_on, 5000);
    expect(latestState()?.trigger).toBe('manual');

    await send(cmps.generator.payload_off);
    await waitFor(() => latestState()?.running === false, 5000);
    await waitFor(async () => !(await nodeStatus(node.url)).relay_on, 5000);
  });

  it('publishes retained stats for the runtime, run hours and fuel sensors', async () => {
    const api = await controllerClient(controller.url);
    const stats = () =>
      ha.msgs
        .filter((m) => m.topic === `${PREFIX}/controller/main/stats`)
        .map((m) => JSON.parse(m.payload) as Record<string, number>);
    await waitFor(() => stats().length > 0, 5000);
    const usage = (await api.get('/api/generator/fuel-usage')).body as { total_gallons: number };
    const last = stats().at(-1) as Record<string, number>;
    expect(Object.keys(last).sort()).toEqual([
      'engine_hours',
      'fuel_used_gallons',
      'runtime_seconds',
      'total_run_hours',
    ]);
    expect(last.runtime_seconds).toBe(0);
    expect(last.fuel_used_gallons).toBeCloseTo(usage.total_gallons, 3);
  });

  it('/metrics carries the generator, relay and heartbeat metrics', async () => {
    const text = await (await fetch(`${controller.url}/metrics`)).text();
    for (const name of [
      'controller_generator_running',
      'controller_armed',
      'controller_relaynode_connected',
      'controller_failsafe_triggered',
      'controller_epo_engaged',
      'controller_heartbeat_last_sent_timestamp_seconds',
      'controller_generator_run_seconds_total',
      'http_request_duration_seconds_bucket',
      'process_cpu_user_seconds_total',
    ]) {
      expect(text, name).toMatch(new RegExp(`^${name}\\{`, 'm'));
    }
    const delivered = /^controller_relay_commands_total\{result="delivered"[^}]*\} (\d+)/m.exec(text);
    expect(Number(delivered?.[1])).toBeGreaterThan(0);
    expect(text).toMatch(/^controller_armed\{[^}]*\} 1$/m);
    expect(text).toMatch(/^controller_generator_running\{[^}]*\} 0$/m);
  });
  it("follows the relay node's genset report: in the state, on /metrics and as Home Assistant entities", async () => {
    // Without a genset report its entities are removed (reduced to their platform).
    expect((await retainedConfig()).genset_oil_pressure).toEqual({ p: 'sensor' });
    const node = await mqtt.connectAsync(broker.url, {
      username: 'relaynode',
      password: PW.relaynode,
      clientId: `genset-reader-${process.pid}`,
      reconnectPeriod: 0,
    });
    try {
      const before = configs().length;
      const report = gensetReport({ mode: 'manual' });
      await node.publishAsync(`${PREFIX}/relaynode/main/genset`, JSON.stringify(report), {
        qos: 1,
        retain: true,
      });
      await waitFor(() => latestState()?.genset?.mode === 'manual', 5000);
      // The first report shows the genset's entities: the device is sent again with them.
      await waitFor(() => configs().length > before, 5000);
      const config = JSON.parse(configs().at(-1)?.payload as string);
      expect(DeviceDiscovery.safeParse(config).error).toBeUndefined();
      const cmps = config.cmps as Record<string, Record<string, unknown>>;
      expect(cmps.genset_oil_pressure).toMatchObject({
        device_class: 'pressure',
        unit_of_measurement: 'kPa',
      });
      expect(cmps.genset_shutdown_alarm).toMatchObject({ p: 'binary_sensor', device_class: 'problem' });
      expect((await retainedConfig()).genset_mode).toMatchObject({ device_class: 'enum' });
      const text = await (await fetch(`${controller.url}/metrics`)).text();
      expect(text).toMatch(/^controller_genset_fuel_level_ratio(\{[^}]*\})? 0\.8$/m);
      expect(text).toMatch(/^controller_genset_mode\{[^}]*mode="manual"[^}]*\} 1$/m);
    } finally {
      // The next suites' controller starts without a genset.
      await node.publishAsync(`${PREFIX}/relaynode/main/genset`, '', { qos: 1, retain: true });
      await node.endAsync();
    }
  });

  it('offers Home Assistant only what the automation account may send, and none of it is refused', async () => {
    const cmps = await retainedConfig();
    expect(offered(cmps)).toEqual([...generator.DEFAULT_AUTOMATION_COMMANDS].sort());
    for (const key of ['armed', 'override', 'clear_lockout'])
      expect(cmps[key], key).toEqual({ p: expect.any(String) });
    // Every control HA shows goes through the automation account without an AUTOMATION_COMMANDS refusal.
    const payloads = Object.values(cmps).flatMap((c) =>
      [c.payload_on, c.payload_off, c.payload_press].filter((p): p is string => typeof p === 'string'),
    );
    for (const p of payloads) await send(p);
    // The last one sets the force-stop override: the ones before it have been handled by then.
    await waitFor(() => latestState()?.override === 'force_stop', 5000);
    await new Promise((r) => setTimeout(r, 300));
    const refused = controller.logs().filter((l) => String(l.msg).includes('not allowed for automation'));
    expect(refused.map((l) => l.command)).toEqual(['arm']);
  });

  it('follows AUTOMATION_COMMANDS after a restart: a wider setting offers the switches, the select and clear lockout', async () => {
    await controller.kill();
    const before = configs().length;
    controller = await startController({
      AUTOMATION_COMMANDS: generator.AutomationCommand.options.join(','),
    });
    await waitFor(() => configs().length > before, 20_000);
    const cmps = await retainedConfig();
    expect(offered(cmps)).toEqual([...generator.AutomationCommand.options].sort());
    expect(cmps.armed).toMatchObject({ p: 'switch', payload_on: '{"command":"arm"}' });
    expect(cmps.override).toMatchObject({ p: 'select' });
    expect(cmps.clear_lockout).toMatchObject({ p: 'button' });
    // The buttons of the narrower setting are removed from the device.
    for (const key of ['armed_state', 'disarm', 'override_state', 'override_force_stop'])
      expect(Object.keys(cmps[key] ?? {}), key).toEqual(['p']);
  }, 40_000);
});
