#!/usr/bin/env node
/**
 * `npm start [-- names…] [--join <string>]`: the whole stack on one machine, or a relay node paired
 * with a controller on another host. Resolves the secrets (environment, then DATA_DIR/secrets.json,
 * then generated), starts the embedded broker unless a broker is set, then each service as its own
 * process, waits for every /health and prints where everything is. Ctrl-C or SIGTERM stops the services
 * one by one in reverse order, the broker last.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { ConfigError, parseConfig } from '@outpost/runtime/config';
import { SUPERVISED_ENV } from '@outpost/runtime/lifecycle';
import { z } from 'zod';
import { type Child, startChild, stopChild } from './children.js';
import { waitForHealth, waitForPort } from './health.js';
import { choosePort } from './ports.js';
import { applyJoin } from './join.js';
import { JoinError } from './join-string.js';
import { removeRunFile, writeRunFile } from './run-file.js';
import { resolveSecrets, SECRETS_FILE_NAME, type SecretSources, SecretError } from './secrets.js';
import { availableServices, type LaunchContext, mainFile, SERVICES } from './services.js';
import { setupTls, TlsError } from './tls.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const Env = z.object({
  MQTT_URL: z
    .string()
    .regex(/^(mqtts?|wss?|tcp):\/\/.+/, 'expected mqtt://host:port')
    .optional(),
  MQTT_PORT: z.string().regex(/^\d+$/, 'expected a port number').optional(),
  MQTT_WS_PORT: z.string().regex(/^\d+$/, 'expected a port number').optional(),
  MQTT_TOPIC_PREFIX: z.string().default(DEFAULT_PREFIX),
  DATA_DIR: z.string().default('./data'),
  HOST: z.string().default('0.0.0.0'),
  START_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
});

/**
 * An earlier version's PGlite folders are copied into the embedded server before any service starts, so
 * the run history is there when the controller first reads it. A failed copy stops the start in one line
 * and leaves the folders as they were.
 */
async function upgradeFromPglite(
  dataDir: string,
  db: import('./embedded-db.js').EmbeddedDatabase,
  shutdown: (code: number) => Promise<void>,
): Promise<void> {
  const { migratePglite, pgliteFolders } = await import('./migrate-pglite.js');
  const roles = pgliteFolders(dataDir);
  if (roles.length === 0) return;
  const say = (line: string) => process.stdout.write(`${'postgres'.padEnd(10)}│ ${line}\n`);
  say(
    `moving ${roles.map((r) => `DATA_DIR/${r}`).join(' and ')} (PGlite, an earlier version) into PostgreSQL`,
  );
  try {
    for (const m of await migratePglite({
      dataDir,
      roles,
      roleUrl: (role) => db.urlFor(role),
      adminUrl: db.adminUrl,
      migrationsFolder: (role) => join(root, 'services', role, 'drizzle'),
    })) {
      const rows = Object.values(m.tables).reduce((a, b) => a + b, 0);
      say(
        `${m.role}: ${rows} rows in ${Object.keys(m.tables).length} tables copied; the old folder is kept as ${m.keptAt}`,
      );
    }
  } catch (err) {
    process.stderr.write(
      `outpost: the PGlite data of an earlier version could not be moved into PostgreSQL (${(err as Error).message}); DATA_DIR/${roles.join(' and DATA_DIR/')} left as they were\n`,
    );
    await shutdown(1);
  }
}

function fail(message: string): never {
  process.stderr.write(`outpost: ${message}\n`);
  process.exit(1);
}

/** Service names and `--join <string>` (or `--join=<string>`) from the command line. */
function parseArgs(argv: string[]): { names: string[]; join?: string } {
  const names: string[] = [];
  let join: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--join') {
      join = argv[++i];
      if (!join) fail('--join needs the string printed by `npm run join-token` on the controller host');
    } else if (a.startsWith('--join=')) join = a.slice('--join='.length);
    else if (a.startsWith('-')) fail(`unknown option ${a}`);
    else names.push(a);
  }
  return join === undefined ? { names } : { names, join };
}

const FROM: Record<string, string> = {
  environment: 'from the environment',
  file: 'from secrets.json',
  generated: 'generated',
  default: 'default',
};

/** Where each secret came from, one line each; values never appear here. */
function describeSources(sources: SecretSources): string[] {
  const accounts = Object.entries(sources.mqtt);
  const set = accounts.filter(([, src]) => src === 'environment').map(([u]) => u);
  const made = accounts.filter(([, src]) => src === 'generated').map(([u]) => u);
  const broker = [
    set.length ? `${set.join(', ')} from the environment` : '',
    made.length === accounts.length ? 'generated' : made.length ? `${made.join(', ')} generated` : '',
    set.length + made.length < accounts.length
      ? `${set.length + made.length ? 'the rest ' : ''}from secrets.json`
      : '',
  ]
    .filter(Boolean)
    .join('; ');
  return [
    ['JWT_SECRET', FROM[sources.JWT_SECRET]],
    ['RELAYNODE_API_SECRET', FROM[sources.RELAYNODE_API_SECRET]],
    ['NOTIFIER_API_SECRET', FROM[sources.NOTIFIER_API_SECRET]],
    ['ADMIN_USERNAME', FROM[sources.ADMIN_USERNAME]],
    ['ADMIN_PASSWORD', FROM[sources.ADMIN_PASSWORD]],
    ['simulator login', FROM[sources.simulator_login]],
    ['broker accounts', broker],
  ].map(([k, v]) => `  ${k!.padEnd(21)} ${v}`);
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

  const args = parseArgs(process.argv.slice(2));
  const dataDir = resolve(env.DATA_DIR);
  let resolved: ReturnType<typeof resolveSecrets>;
  try {
    if (args.join !== undefined) {
      const joined = applyJoin(dataDir, args.join);
      process.stdout.write(`outpost: joined site "${joined.site}" on ${joined.mqtt_url}\n`);
    }
    resolved = resolveSecrets(dataDir, process.env);
  } catch (err) {
    if (err instanceof SecretError || err instanceof JoinError) fail(err.message);
    throw err;
  }
  const { secrets, sources, createdAdminPassword } = resolved;
  // A host paired by --join runs its relay node against the controller's broker.
  const joined = env.MQTT_URL ? undefined : secrets.join;

  const built = availableServices(root);
  const wanted = args.names.length ? args.names : joined ? ['relay-node'] : [];
  for (const name of wanted) {
    if (!SERVICES.some((s) => s.name === name)) {
      fail(`unknown service "${name}"; services: ${SERVICES.map((s) => s.name).join(', ')}`);
    }
    if (!built.some((s) => s.name === name))
      fail(`service "${name}" is not built (${mainFile(root, name)} missing)`);
    if (joined && name !== 'relay-node') {
      fail(
        `${join(dataDir, SECRETS_FILE_NAME)} pairs this host with site "${joined.site}": only relay-node runs here (set MQTT_URL to run other services)`,
      );
    }
  }
  const selected = wanted.length ? built.filter((s) => wanted.includes(s.name)) : built;
  const adminUsername = secrets.ADMIN_USERNAME ?? 'admin';

  const loopback = env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;
  const tls = await setupTls({ env: process.env, host: env.HOST, localHost: loopback, dataDir }).catch(
    (err: unknown) => {
      if (err instanceof ConfigError || err instanceof TlsError) fail(err.message);
      throw err;
    },
  );
  const scheme = tls.on ? 'https' : 'http';
  const deadline = Date.now() + env.START_TIMEOUT_SECONDS * 1000;
  const children: Child[] = [];
  let stopping = false;

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('outpost: stopping\n');
    // Reverse start order: the controller goes before the relay node it commands, every service
    // before the broker, so each says `offline` on a live connection and nothing reconnects.
    for (const child of [...children].reverse()) {
      const exit = await stopChild(child);
      process.stdout.write(`outpost: ${child.name} stopped${exit ? ` (${exit})` : ''}\n`);
    }
    removeRunFile(dataDir);
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGHUP', () => void shutdown(0));

  process.stdout.write(
    `Secrets (${join(dataDir, SECRETS_FILE_NAME)}):\n${describeSources(sources).join('\n')}\n`,
  );
  process.stdout.write(tls.on ? `TLS on:\n${tls.lines.join('\n')}\n` : 'TLS off: plain HTTP and MQTT\n');

  const taken = new Set<number>();
  const lines: string[] = [];
  const databaseUrls: Record<string, string> = {};
  const usesDatabase = selected.some((s) => s.name === 'controller' || s.name === 'notifier');
  if (usesDatabase && !process.env.DATABASE_URL) {
    // Loaded only when used: a relay-node-only Pi never pays for the PostgreSQL client in the launcher.
    const { DatabaseError, startEmbeddedDatabase } = await import('./embedded-db.js');
    const port = await choosePort(process.env.POSTGRES_PORT, 54320, '127.0.0.1', taken);
    try {
      const db = await startEmbeddedDatabase({
        dataDir,
        secrets,
        port: port.port,
        deadline,
        log: (line) => process.stdout.write(`${'postgres'.padEnd(10)}│ ${line}\n`),
      });
      children.push(db);
      await upgradeFromPglite(dataDir, db, shutdown);
      databaseUrls.controller = db.urlFor('controller');
      databaseUrls.notifier = db.urlFor('notifier');
      lines.push(
        `  ${'PostgreSQL'.padEnd(12)} 127.0.0.1:${db.port}  (embedded, ${join(dataDir, 'postgres')})`,
      );
    } catch (err) {
      if (err instanceof DatabaseError) {
        process.stderr.write(`outpost: ${err.message}\n`);
        await shutdown(1);
      }
      throw err;
    }
  }
  let mqttUrl = env.MQTT_URL ?? joined?.mqtt_url;
  const baseEnv: NodeJS.ProcessEnv = {
    // glibc otherwise raises its mmap threshold after the first big free, so every scrypt login's
    // 16 MiB stays in the heap of the thread that ran it (≈70 MB kept by the broker after a few logins).
    MALLOC_MMAP_THRESHOLD_: '131072',
    ...process.env,
    ...tls.env,
    DATA_DIR: dataDir,
    MQTT_TOPIC_PREFIX: process.env.MQTT_TOPIC_PREFIX
      ? env.MQTT_TOPIC_PREFIX
      : (joined?.prefix ?? env.MQTT_TOPIC_PREFIX),
    ...(joined && !process.env.RELAYNODE_ID ? { RELAYNODE_ID: joined.site } : {}),
    [SUPERVISED_ENV]: '1',
  };

  if (!mqttUrl) {
    const tcp = await choosePort(env.MQTT_PORT, 1883, env.HOST, taken);
    const ws = await choosePort(env.MQTT_WS_PORT, 9001, env.HOST, taken);
    const secure = tls.on ? await choosePort(process.env.MQTT_TLS_PORT, 8883, env.HOST, taken) : null;
    const wss = tls.on ? await choosePort(process.env.MQTT_WSS_PORT, 8884, env.HOST, taken) : null;
    for (const [what, p, dflt] of [
      ['MQTT_PORT', tcp, 1883],
      ['MQTT_WS_PORT', ws, 9001],
    ] as const) {
      if (p.moved) process.stdout.write(`outpost: port ${dflt} is in use; ${what} moved to ${p.port}\n`);
    }
    const broker = startChild(
      'broker',
      join(root, 'broker', 'dist', 'main.js'),
      {
        ...baseEnv,
        MQTT_PORT: String(tcp.port),
        MQTT_WS_PORT: String(ws.port),
        ...(secure && wss ? { MQTT_TLS_PORT: String(secure.port), MQTT_WSS_PORT: String(wss.port) } : {}),
        MQTT_HOST: env.HOST,
      },
      root,
    );
    children.push(broker);
    try {
      await waitForPort(loopback, (secure ?? tcp).port, deadline, () => broker.proc.exitCode === null);
    } catch (err) {
      process.stderr.write(`outpost: broker ${(err as Error).message}\n`);
      await shutdown(1);
    }
    mqttUrl = secure ? `mqtts://${loopback}:${secure.port}` : `mqtt://${loopback}:${tcp.port}`;
    writeRunFile(dataDir, {
      pid: process.pid,
      broker: {
        host: env.HOST,
        port: tcp.port,
        ws_port: ws.port,
        ...(secure ? { tls_port: secure.port } : {}),
      },
    });
    lines.push(
      secure && wss
        ? `  ${'MQTT broker'.padEnd(12)} ${mqttUrl}  wss://${loopback}:${wss.port}  (plain mqtt://127.0.0.1:${tcp.port} on this host only)`
        : `  ${'MQTT broker'.padEnd(12)} ${mqttUrl}  ws://${loopback}:${ws.port}`,
    );
  } else {
    writeRunFile(dataDir, { pid: process.pid });
    const what = joined ? `site "${joined.site}"` : 'external';
    lines.push(`  ${'MQTT broker'.padEnd(12)} ${mqttUrl.replace(/\/\/[^@/]*@/, '//')} (${what})`);
  }

  const ports: Record<string, number> = {};
  for (const s of selected) {
    ports[s.name] = (await choosePort(process.env[s.portEnv], s.defaultPort, env.HOST, taken)).port;
  }
  const ctx: LaunchContext = { secrets, adminUsername, ports, host: env.HOST, databaseUrls, tls: tls.on };
  // Each service logs in with its own generated account, on the embedded broker and on an external one
  // set up from infra/ (make-passwd.sh reads the same secrets); credentials in MQTT_URL or an explicit
  // MQTT_USERNAME win.
  const externalCreds = env.MQTT_URL && (/\/\/[^/@]+@/.test(env.MQTT_URL) || process.env.MQTT_USERNAME);
  const mqttCreds = (user: string) =>
    externalCreds ? {} : { MQTT_USERNAME: user, MQTT_PASSWORD: secrets.mqtt[user] ?? '' };

  // Every service starts at once and waits for the broker or PostgreSQL on its own: on a Pi most of a
  // service's start is loading its code, and loading them side by side takes the stack from the sum of
  // those times to roughly the longest one.
  const started = selected.map((s) => {
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
    return { s, port, child };
  });
  const failures = await Promise.all(
    started.map(({ s, port, child }) =>
      waitForHealth(
        `${scheme}://${loopback}:${port}/health`,
        deadline,
        () => child.proc.exitCode === null,
        tls.ca,
      ).then(
        () => null,
        (err: unknown) => `outpost: ${s.name} ${(err as Error).message}\n`,
      ),
    ),
  );
  const failed = failures.find((f) => f !== null);
  if (failed) {
    process.stderr.write(failed);
    await shutdown(1);
  }
  for (const { s, port } of started) {
    const hint =
      s.name === 'controller'
        ? `  login: ${adminUsername} / ${passwordHint(sources.ADMIN_PASSWORD, createdAdminPassword ? secrets.ADMIN_PASSWORD : null, dataDir)}`
        : s.name === 'simulator'
          ? `  login: ${ctx.secrets.SIMULATOR_USERNAME ?? adminUsername} / ${passwordHint(sources.simulator_login, sources.simulator_login === 'generated' ? (secrets.SIMULATOR_PASSWORD ?? null) : null, dataDir)}`
          : '';
    lines.push(`  ${s.name.padEnd(12)} ${scheme}://${loopback}:${port}${hint}`);
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
  process.stdout.write('Press Ctrl-C to stop.\n');
  if (!existsSync(join(dataDir, SECRETS_FILE_NAME))) fail('secrets file vanished');
}

/** The first generated admin password is the one value ever printed; otherwise where to find it. */
function passwordHint(source: string, generated: string | null, dataDir: string): string {
  if (generated) return `${generated}  (generated; kept in ${join(dataDir, SECRETS_FILE_NAME)})`;
  return source === 'environment'
    ? '(the password you set)'
    : `(password in ${join(dataDir, SECRETS_FILE_NAME)})`;
}

main().catch((err: unknown) => fail((err as Error).stack ?? String(err)));
