#!/usr/bin/env node
/**
 * `npm start [-- names…]`: the whole stack on one machine. Generates secrets on the first run, starts
 * the embedded broker unless MQTT_URL is set, then each service as its own process, waits for every
 * /health and prints where everything is. Ctrl-C or SIGTERM stops it all.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, parseConfig } from '@outpost/runtime';
import { z } from 'zod';
import { type Child, startChild, stopChild } from './children.js';
import { waitForHealth, waitForPort } from './health.js';
import { choosePort } from './ports.js';
import { ensureSecrets, SECRETS_FILE_NAME } from './secrets.js';
import { availableServices, type LaunchContext, mainFile, SERVICES } from './services.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const Env = z.object({
  MQTT_URL: z
    .string()
    .regex(/^(mqtts?|wss?|tcp):\/\/.+/, 'expected mqtt://host:port')
    .optional(),
  MQTT_PORT: z.string().regex(/^\d+$/, 'expected a port number').optional(),
  MQTT_WS_PORT: z.string().regex(/^\d+$/, 'expected a port number').optional(),
  MQTT_TOPIC_PREFIX: z.string().default('outpost'),
  DATA_DIR: z.string().default('./data'),
  HOST: z.string().default('0.0.0.0'),
  ADMIN_USERNAME: z.string().min(1).default('admin'),
  START_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
});

function fail(message: string): never {
  process.stderr.write(`outpost: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let env: z.infer<typeof Env>;
  try {
    env = parseConfig(Env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  for (const name of [
    'CONTROLLER_PORT',
    'RELAYNODE_PORT',
    'NOTIFIER_PORT',
    'SIMULATOR_PORT',
    'DASHBOARD_PORT',
  ]) {
    const v = process.env[name];
    if (v && !/^\d+$/.test(v)) fail(`Invalid environment variable ${name}: expected a port number`);
  }

  const built = availableServices(root);
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  for (const name of wanted) {
    if (!SERVICES.some((s) => s.name === name)) {
      fail(`unknown service "${name}"; services: ${SERVICES.map((s) => s.name).join(', ')}`);
    }
    if (!built.some((s) => s.name === name))
      fail(`service "${name}" is not built (${mainFile(root, name)} missing)`);
  }
  const selected = wanted.length ? built.filter((s) => wanted.includes(s.name)) : built;

  const dataDir = resolve(env.DATA_DIR);
  const { secrets, created } = ensureSecrets(dataDir);
  const loopback = env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;
  const deadline = Date.now() + env.START_TIMEOUT_SECONDS * 1000;
  const children: Child[] = [];
  let stopping = false;

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('outpost: stopping…\n');
    // Services first, so they can say `offline` to the broker; the broker last.
    const services = children.filter((c) => c.name !== 'broker');
    await Promise.all(services.map((c) => stopChild(c)));
    await Promise.all(children.filter((c) => c.name === 'broker').map((c) => stopChild(c)));
    process.stdout.write('outpost: stopped\n');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  const taken = new Set<number>();
  const lines: string[] = [];
  let mqttUrl = env.MQTT_URL;
  const baseEnv: NodeJS.ProcessEnv = {
    // glibc otherwise raises its mmap threshold after the first big free, so every scrypt login's
    // 16 MiB stays in the heap of the thread that ran it (≈70 MB kept by the broker after a few logins).
    MALLOC_MMAP_THRESHOLD_: '131072',
    ...process.env,
    DATA_DIR: dataDir,
    MQTT_TOPIC_PREFIX: env.MQTT_TOPIC_PREFIX,
  };

  if (!mqttUrl) {
    const tcp = await choosePort(env.MQTT_PORT, 1883, env.HOST, taken);
    const ws = await choosePort(env.MQTT_WS_PORT, 9001, env.HOST, taken);
    for (const [what, p, dflt] of [
      ['MQTT_PORT', tcp, 1883],
      ['MQTT_WS_PORT', ws, 9001],
    ] as const) {
      if (p.moved) process.stdout.write(`outpost: port ${dflt} is in use; ${what} moved to ${p.port}\n`);
    }
    const broker = startChild(
      'broker',
      join(root, 'broker', 'dist', 'main.js'),
      { ...baseEnv, MQTT_PORT: String(tcp.port), MQTT_WS_PORT: String(ws.port), MQTT_HOST: env.HOST },
      root,
    );
    children.push(broker);
    try {
      await waitForPort(loopback, tcp.port, deadline, () => broker.proc.exitCode === null);
    } catch (err) {
      process.stderr.write(`outpost: broker ${(err as Error).message}\n`);
      await shutdown(1);
    }
    mqttUrl = `mqtt://${loopback}:${tcp.port}`;
    lines.push(`  ${'MQTT broker'.padEnd(12)} ${mqttUrl}  ws://${loopback}:${ws.port}`);
  } else {
    lines.push(`  ${'MQTT broker'.padEnd(12)} ${mqttUrl.replace(/\/\/[^@/]*@/, '//')} (external)`);
  }

  const ports: Record<string, number> = {};
  for (const s of selected) {
    ports[s.name] = (await choosePort(process.env[s.portEnv], s.defaultPort, env.HOST, taken)).port;
  }
  const ctx: LaunchContext = { secrets, adminUsername: env.ADMIN_USERNAME, ports, host: env.HOST };
  // Each service logs in with its own generated account, on the embedded broker and on an external one
  // set up from infra/ (make-passwd.sh reads the same secrets); credentials in MQTT_URL or an explicit
  // MQTT_USERNAME win.
  const externalCreds = env.MQTT_URL && (/\/\/[^/@]+@/.test(env.MQTT_URL) || process.env.MQTT_USERNAME);
  const mqttCreds = (user: string) =>
    externalCreds ? {} : { MQTT_USERNAME: user, MQTT_PASSWORD: secrets.mqtt[user] ?? '' };

  for (const s of selected) {
    const port = ports[s.name]!;
    const child = startChild(
      s.name,
      mainFile(root, s.name),
      {
        ...baseEnv,
        ...s.env(ctx),
        ...mqttCreds(s.mqttUser),
        MQTT_URL: mqttUrl,
        PORT: String(port),
        HOST: env.HOST,
        [s.portEnv]: String(port),
      },
      root,
    );
    children.push(child);
    try {
      await waitForHealth(`http://${loopback}:${port}/health`, deadline, () => child.proc.exitCode === null);
    } catch (err) {
      process.stderr.write(`outpost: ${s.name} ${(err as Error).message}\n`);
      await shutdown(1);
    }
    const hint =
      s.name === 'controller' || s.name === 'simulator'
        ? `  login: ${env.ADMIN_USERNAME} / ${created ? secrets.ADMIN_PASSWORD : `(password in ${join(dataDir, SECRETS_FILE_NAME)})`}`
        : '';
    lines.push(`  ${s.name.padEnd(12)} http://${loopback}:${port}${hint}`);
  }

  for (const child of children) {
    void child.exited.then((code) => {
      if (!stopping) {
        process.stderr.write(`outpost: ${child.name} exited unexpectedly (code ${code}); stopping\n`);
        void shutdown(1);
      }
    });
  }

  if (!selected.length) lines.push('  (no services are built yet; only the broker runs)');
  process.stdout.write(`\nOutpost is ready:\n${lines.join('\n')}\n`);
  if (created) process.stdout.write(`  secrets written to ${join(dataDir, SECRETS_FILE_NAME)} (mode 0600)\n`);
  process.stdout.write('Press Ctrl-C to stop.\n');
  if (!existsSync(join(dataDir, SECRETS_FILE_NAME))) fail('secrets file vanished');
}

main().catch((err: unknown) => fail((err as Error).stack ?? String(err)));
