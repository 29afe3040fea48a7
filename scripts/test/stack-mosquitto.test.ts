import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSecrets, type Secrets } from '../src/secrets.js';
import { mainFile, SERVICES } from '../src/services.js';
import { haveMosquitto, startMosquitto } from './helpers/mosquitto.js';
import { freePort, sleep, until } from './helpers/processes.js';

/**
 * The whole stack, started by the launcher, on a real Mosquitto configured from infra/ (its config,
 * its ACL, a password file made by make-passwd.sh): every service logs in with its own account and
 * works, and the ACL refuses what is outside an account's rules.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DASHBOARD_AUTH = 'ops:stack-dashboard-pass';

/** The short HS256 token the controller signs its notifier calls with (contracts SERVICE_TOKEN). */
function serviceToken(secret: string): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: 'admin', iss: 'outpost-controller', aud: 'outpost-notifier', iat: now, exp: now + 60 })}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}
const _infra = join(root, 'infra');
const CI = process.env.CI === 'true';

interface MetricFamily {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string> }[];
}
const parsePrometheusTextFormat = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => MetricFamily[];

const builtAll =
  existsSync(join(root, 'scripts/dist/start.js')) &&
  SERVICES.every((s) => existsSync(mainFile(root, s.name)));
if (CI && !haveMosquitto) throw new Error('mosquitto and mosquitto_passwd are required under CI=true');
if (CI && !builtAll) throw new Error('the launcher and every service must be built under CI=true');
/** Prometheus's own linter (Debian's `prometheus` package); the test-peer step installs it. */
const havePromtool = spawnSync('sh', ['-c', 'command -v promtool']).status === 0;
if (CI && !havePromtool) throw new Error('promtool is required under CI=true (apt-get install prometheus)');
if (!havePromtool)
  console.log(
    'stack-mosquitto: promtool not found, `promtool check metrics` not run (apt-get install prometheus)',
  );

const PORT_ENV: Record<string, string> = {
  controller: 'CONTROLLER_PORT',
  'relay-node': 'RELAYNODE_PORT',
  notifier: 'NOTIFIER_PORT',
  simulator: 'SIMULATOR_PORT',
  dashboard: 'DASHBOARD_PORT',
};

/** The service metrics Grafana's dashboards and alert rules query, which must exist as named. */
const METRIC_PREFIX: Record<string, string> = {
  controller: 'controller_',
  'relay-node': 'relaynode_',
  simulator: 'simulator_',
  dashboard: 'dashboard_',
};
const grafanaMetrics = [
  readFileSync(join(root, 'infra/grafana/dashboards/operations.json'), 'utf8'),
  readFileSync(join(root, 'infra/grafana/provisioning/alerting/outpost.yaml'), 'utf8'),
]
  .flatMap((text) =>
    // A name, not a family written as a pattern in prose (`controller_genset_*`).
    [...text.matchAll(/\b(controller|relaynode|simulator|dashboard)_[a-z_]+(?![a-z_*])/g)].map((m) => m[0]),
  )
  .filter((name, i, all) => all.indexOf(name) === i);

/** Metric families each service must expose (the list), beyond prom-client's defaults. */
const EXPECTED_METRICS: Record<string, string[]> = {
  controller: [
    'controller_generator_running',
    'controller_relay_commands_total',
    'controller_heartbeat_last_sent_timestamp_seconds',
    'controller_failsafe_triggered',
    'controller_epo_engaged',
    'controller_generator_run_seconds_total',
  ],
  'relay-node': [
    'relaynode_relay_on',
    'relaynode_failsafe_triggered',
    'relaynode_epo_engaged',
    'relaynode_last_heartbeat_timestamp_seconds',
    'relaynode_desired_states_total',
  ],
  notifier: [],
  simulator: ['simulator_ticks_total', 'simulator_receiver_lines_total', 'simulator_running'],
  dashboard: [
    'dashboard_simulators',
    'dashboard_broker_clients_connected',
    'dashboard_broker_messages_received_total',
    'dashboard_broker_messages_sent_total',
  ],
};

describe.skipIf(!haveMosquitto || !builtAll)('the stack on Mosquitto configured from infra/', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-stack-mosq-'));
  const dataDir = join(dir, 'data');
  // Under root the embedded PostgreSQL runs as its own user, which must reach DATA_DIR/postgres.
  chmodSync(dir, 0o711);
  let secrets: Secrets;

  /** What each service takes as its own credential, for /health's detail. */
  const credentials = async (name: string): Promise<Record<string, string>> => {
    switch (name) {
      case 'controller':
      case 'simulator': {
        const controller = name === 'controller';
        const res = await fetch(`${url(name)}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(
            controller
              ? { username: 'admin', password: secrets.ADMIN_PASSWORD }
              : { username: secrets.SIMULATOR_USERNAME ?? 'admin', password: secrets.SIMULATOR_PASSWORD },
          ),
        });
        if (controller)
          return { authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}` };
        return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] as string };
      }
      case 'relay-node':
        return { 'x-api-key': secrets.RELAYNODE_API_SECRET };
      case 'notifier':
        return { authorization: `Bearer ${serviceToken(secrets.NOTIFIER_API_SECRET)}` };
      case 'dashboard':
        return { authorization: `Basic ${Buffer.from(DASHBOARD_AUTH).toString('base64')}` };
      default:
        throw new Error(`no credential for ${name}`);
    }
  };
  let mosquitto: ChildProcess | null = null;
  let launcher: ChildProcess | null = null;
  let launcherOut = '';
  let brokerUrl = '';
  const ports: Record<string, number> = {};
  const clients: MqttClient[] = [];
  const url = (svc: string) => `http://127.0.0.1:${ports[svc]}`;

  const login = async (username: string): Promise<MqttClient> => {
    const c = await mqtt.connectAsync(brokerUrl, {
      username,
      password: secrets.mqtt[username],
      protocolVersion: 4,
      reconnectPeriod: 0,
      clientId: `stack-test-${username}-${clients.length}-${process.pid}`,
    });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    ({ secrets } = ensureSecrets(dataDir));
    const broker = await startMosquitto(dir, dataDir);
    mosquitto = broker.proc;
    brokerUrl = broker.url;

    for (const s of SERVICES) ports[s.name] = await freePort();
    launcher = spawn(process.execPath, [join(root, 'scripts/dist/start.js')], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        MQTT_URL: brokerUrl,
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        START_TIMEOUT_SECONDS: '75',
        // /health's detail needs each service's credential; the dashboard's is DASHBOARD_AUTH.
        DASHBOARD_AUTH: DASHBOARD_AUTH,
        // This site lets Home Assistant arm as well (arming is not in the default set).
        AUTOMATION_COMMANDS: 'start,stop,arm,disarm,override_force_stop',
        ...Object.fromEntries(SERVICES.map((s) => [PORT_ENV[s.name] as string, String(ports[s.name])])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout?.on('data', (d) => (launcherOut += d));
    launcher.stderr?.on('data', (d) => (launcherOut += d));
    await until(
      'the launcher to report the stack ready',
      () => {
        if (launcher?.exitCode !== null) throw new Error(`launcher exited: ${launcherOut}`);
        return launcherOut.includes('Outpost is ready');
      },
      80_000,
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${launcherOut}`);
    });
  }, 100_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
    if (launcher && launcher.exitCode === null) {
      const exited = new Promise((r) => launcher?.once('exit', r));
      launcher.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000)]);
    }
    mosquitto?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('every service is healthy and connected to Mosquitto with its own account', {
    timeout: 30_000,
  }, async () => {
    for (const s of SERVICES) {
      const headers = await credentials(s.name);
      const health = await until(`${s.name} broker connected`, async () => {
        const body = (await (await fetch(`${url(s.name)}/health`, { headers })).json()) as {
          broker?: string;
        };
        return body.broker === 'connected' ? body : undefined;
      });
      // Without them: up, and nothing more.
      expect(await (await fetch(`${url(s.name)}/health`)).json(), s.name).toEqual({ status: 'healthy' });
      expect(health, s.name).toMatchObject({ broker: 'connected' });
    }
    // The accounts in force are the generated ones: a wrong password is refused.
    await expect(
      mqtt.connectAsync(brokerUrl, { username: 'controller', password: 'wrong', reconnectPeriod: 0 }),
    ).rejects.toThrow(/Not authorized|Bad username/i);
  });

  it('automation allowed to arm (AUTOMATION_COMMANDS) arms over MQTT; a start through the controller closes the relay on the relay node', {
    timeout: 30_000,
  }, async () => {
    const viewer = await login('viewer');
    const states: Record<string, unknown>[] = [];
    viewer.on('message', (topic, payload) => {
      if (topic === 'outpost/controller/main/state') states.push(JSON.parse(payload.toString()));
    });
    await viewer.subscribeAsync('outpost/controller/main/state', { qos: 1 });
    await until('the controller to see the relay node', () => states.at(-1)?.slave_connected === true);

    const automation = await login('automation');
    await automation.publishAsync('outpost/controller/main/set', JSON.stringify({ command: 'arm' }), {
      qos: 1,
    });
    await until('armed', () => states.at(-1)?.armed === true);

    const token = (
      (await (
        await fetch(`${url('controller')}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password: secrets.ADMIN_PASSWORD }),
        })
      ).json()) as { access_token: string }
    ).access_token;
    const call = (path: string) =>
      fetch(`${url('controller')}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
    const relay = async () =>
      (
        (await (
          await fetch(`${url('relay-node')}/api/relay/state`, {
            headers: { 'X-API-Key': secrets.RELAYNODE_API_SECRET },
          })
        ).json()) as { relay_on: boolean }
      ).relay_on;

    expect((await call('/api/generator/start')).status).toBe(200);
    await until('relay ON on the relay node', relay);
    expect((await call('/api/generator/stop')).status).toBe(200);
    await until('relay OFF on the relay node', async () => !(await relay()));
  });

  it('HA discovery for the controller and the simulator is retained and comes again on HA’s birth', {
    timeout: 30_000,
  }, async () => {
    const ha = await login('automation');
    const configs: { topic: string; retain: boolean; body: Record<string, unknown> }[] = [];
    ha.on('message', (topic, payload, packet) => {
      if (topic.endsWith('/config') && payload.length)
        configs.push({ topic, retain: packet.retain, body: JSON.parse(payload.toString()) });
    });
    await ha.subscribeAsync('homeassistant/#', { qos: 1 });
    const devices = [
      'homeassistant/device/outpost_controller_main/config',
      'homeassistant/device/outpost_simulator_main/config',
    ];
    await until('retained discovery', () =>
      devices.every((d) => configs.some((c) => c.topic === d && c.retain)),
    );
    const controller = configs.find((c) => c.topic === devices[0])?.body as {
      cmps: Record<string, { command_topic?: string; availability_mode?: string }>;
      availability: { topic: string }[];
    };
    // The device follows the controller; the start switch also needs the relay node.
    expect(controller.availability.map((a) => a.topic)).toEqual(['outpost/controller/main/availability']);
    expect(controller.cmps.generator?.availability_mode).toBe('all');
    expect(controller.cmps.generator?.command_topic).toBe('outpost/controller/main/set');

    const before = configs.length;
    await ha.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await until('the device set again', () =>
      devices.every((d) => configs.slice(before).some((c) => c.topic === d && !c.retain)),
    );
  });

  it('an account publishing outside its ACL is not delivered', { timeout: 30_000 }, async () => {
    const viewer = await login('viewer');
    const heard: string[] = [];
    viewer.on('message', (topic) => heard.push(topic));
    await viewer.subscribeAsync(['outpost/#', 'homeassistant/#'], { qos: 1 });
    const forbidden: [string, string][] = [
      ['relaynode', 'outpost/relaynode/other/state'],
      ['relaynode', 'outpost/relaynode/main/desired'],
      ['relaynode', 'outpost/controller/main/set'],
      ['simulator', 'outpost/simulator/other/position'],
      ['simulator', 'outpost/controller/main/set'],
      ['dashboard', 'outpost/controller/main/set'],
      ['notifier', 'outpost/relaynode/main/desired'],
      ['automation', 'outpost/relaynode/main/desired'],
      ['viewer', 'outpost/controller/main/set'],
    ];
    for (const [user, topic] of forbidden) {
      const c = await login(user);
      await c.publishAsync(topic, '{"probe":true}', { qos: 1 }).catch(() => undefined);
      // Its own topic afterwards: once that arrives, the forbidden one would have too.
      const own: Record<string, string> = {
        relaynode: 'outpost/relaynode/main/event/probe',
        simulator: 'outpost/simulator/main/probe',
        dashboard: 'outpost/dashboard/main/probe',
        notifier: 'outpost/notifier/main/probe',
        automation: 'homeassistant/status',
      };
      const marker = own[user];
      if (marker) {
        await c.publishAsync(marker, user === 'automation' ? 'probe' : '{}', { qos: 1 });
        await until(`${user}'s own publish`, () => heard.includes(marker));
        heard.splice(heard.indexOf(marker), 1);
      } else {
        await sleep(300);
      }
      expect(
        heard.filter((t) => t === topic),
        `${user} -> ${topic}`,
      ).toEqual([]);
    }
  });

  it('/metrics of every service parses as Prometheus text and has its metrics', {
    timeout: 30_000,
  }, async () => {
    for (const s of SERVICES) {
      // Only the dashboard has DASHBOARD_AUTH here, which covers its /metrics too.
      const headers = s.name === 'dashboard' ? await credentials(s.name) : {};
      const res = await fetch(`${url(s.name)}/metrics`, { headers });
      expect(res.status, s.name).toBe(200);
      const text = await res.text();
      const families = parsePrometheusTextFormat(text);
      const sample = (name: string) => Number(families.find((f) => f.name === name)?.metrics[0]?.value);
      const names = new Set(families.map((f) => f.name));
      for (const name of [
        'process_cpu_user_seconds_total',
        'nodejs_heap_size_used_bytes',
        'http_request_duration_seconds',
        ...(EXPECTED_METRICS[s.name] ?? []),
      ]) {
        expect(names.has(name), `${s.name}: ${name}`).toBe(true);
      }
      expect(families.find((f) => f.name === 'http_request_duration_seconds')?.type).toBe('HISTOGRAM');
      if (s.name === 'controller') {
        expect(sample('controller_generator_run_seconds_total')).toBeGreaterThanOrEqual(0);
        const delivered = families
          .find((f) => f.name === 'controller_relay_commands_total')
          ?.metrics.find((m) => m.labels?.result === 'delivered');
        expect(Number(delivered?.value)).toBeGreaterThan(0);
      }
      if (s.name === 'dashboard') {
        // Mosquitto's own $SYS figures: every service and this test's clients are connected.
        await until('broker figures on the dashboard', async () => {
          const now = parsePrometheusTextFormat(
            await (await fetch(`${url(s.name)}/metrics`, { headers })).text(),
          );
          return (
            Number(now.find((f) => f.name === 'dashboard_broker_clients_connected')?.metrics[0]?.value) >= 5
          );
        });
      }
      for (const name of grafanaMetrics.filter((m) => m.startsWith(METRIC_PREFIX[s.name] ?? '-')))
        expect(
          names.has(name) || names.has(name.replace(/_(sum|count|bucket)$/, '')),
          `Grafana reads ${name}`,
        ).toBe(true);
      // The parser folds histogram label sets together, so the per-route series are read off the text.
      expect(text, `${s.name} HTTP metrics by route`).toMatch(
        /^http_request_duration_seconds_count\{[^}]*route="\/health"[^}]*\} [1-9]/m,
      );
    }
  });

  it.skipIf(!havePromtool)(
    '/metrics of every service passes `promtool check metrics` (names, units, help)',
    {
      timeout: 30_000,
    },
    async () => {
      for (const s of SERVICES) {
        const headers = s.name === 'dashboard' ? await credentials(s.name) : {};
        const res = await fetch(`${url(s.name)}/metrics`, { headers });
        expect(res.status, s.name).toBe(200);
        const lint = spawnSync('promtool', ['check', 'metrics'], {
          input: await res.text(),
          encoding: 'utf8',
        });
        expect(`${lint.stdout}${lint.stderr}`.trim(), `${s.name}: promtool check metrics`).toBe('');
        expect(lint.status, s.name).toBe(0);
      }
    },
  );
});
