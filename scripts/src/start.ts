#!/usr/bin/env node
/**
 * `npm start [-- names…] [--join-file <path>|- | --join <string>]`: the whole stack on one machine, or a
 * relay node paired with a controller on another host (--join-file keeps the string out of `ps`). Resolves the secrets (environment, then DATA_DIR/secrets.json,
 * then generated), starts the embedded broker unless a broker is set, then each service as its own
 * process, waits for every /health and prints where everything is. Ctrl-C or SIGTERM stops the services
 * one by one in reverse order, the broker last.
 *
 * This process stays resident while the stack runs, so it loads Node's own modules only: the decisions
 * (launch-plan.ts) and the PostgreSQL client's work run in one-shot children (one-shot.ts).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUPERVISED_ENV } from '@outpost/runtime/lifecycle';
import { forgetAdminPassword } from './admin-password.js';
import { type ChildName, childEnv } from './child-env.js';
import { type Child, startChild, stopChild } from './children.js';
import { pgliteFolders } from './database-roles.js';
import { DatabaseError, type EmbeddedDatabase, startEmbeddedDatabase } from './embedded-db.js';
import { waitForHealth, waitForPort } from './health.js';
import { resolveJoinFile } from './join-file.js';
import type { LaunchPlan } from './launch-plan.js';
import { runOneShot } from './one-shot.js';
import { choosePort } from './ports.js';
import { removeRunFile, writeRunFile } from './run-file.js';
import { SECRETS_FILE_NAME } from './secrets-file.js';
import { type LaunchContext, mainFile, SERVICES } from './services.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * An earlier version's PGlite folders are copied into the embedded server before any service starts, so
 * the run history is there when the controller first reads it. A failed copy stops the start in one line
 * and leaves the folders as they were.
 */
async function upgradeFromPglite(
  dataDir: string,
  db: EmbeddedDatabase,
  shutdown: (code: number) => Promise<void>,
): Promise<void> {
  const roles = pgliteFolders(dataDir);
  if (roles.length === 0) return;
  try {
    await runOneShot(here('./pglite-upgrade-main.js'), {
      dataDir,
      roles,
      roleUrls: Object.fromEntries(roles.map((r) => [r, db.urlFor(r)])),
      adminUrl: db.adminUrl,
    });
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

async function main(): Promise<void> {
  let plan: LaunchPlan;
  try {
    // A join string read from --join-file reaches the plan over IPC, never the command line.
    const argv = await resolveJoinFile(process.argv.slice(2));
    plan = await runOneShot(here('./launch-plan-main.js'), { argv });
  } catch (err) {
    fail((err as Error).message);
  }
  const { dataDir, secrets, tls, loopback, adminUsername } = plan;
  const selected = SERVICES.filter((s) => plan.services.includes(s.name));
  const scheme = tls.on ? 'https' : 'http';
  const deadline = Date.now() + plan.timeoutMs;
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

  const taken = new Set<number>();
  const lines: string[] = [];
  const databaseUrls: Record<string, string> = {};
  const usesDatabase = selected.some((s) => s.name === 'controller' || s.name === 'notifier');
  if (usesDatabase && !process.env.DATABASE_URL) {
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
  let mqttUrl = plan.mqttUrl;
  const baseEnv: NodeJS.ProcessEnv = {
    // glibc otherwise raises its mmap threshold after the first big free, so every scrypt login's
    // 16 MiB stays in the heap of the thread that ran it (≈70 MB kept by the broker after a few logins).
    MALLOC_MMAP_THRESHOLD_: '131072',
    ...process.env,
    ...tls.env,
    DATA_DIR: dataDir,
    ...plan.metricsEnv,
    MQTT_TOPIC_PREFIX: plan.prefix,
    ...(plan.relayNodeId ? { RELAYNODE_ID: plan.relayNodeId } : {}),
    [SUPERVISED_ENV]: '1',
  };

  if (!mqttUrl) {
    const tcp = await choosePort(plan.mqttPort, 1883, plan.host, taken);
    const ws = await choosePort(plan.mqttWsPort, 9001, plan.host, taken);
    const secure = tls.on ? await choosePort(process.env.MQTT_TLS_PORT, 8883, plan.host, taken) : null;
    const wss = tls.on ? await choosePort(process.env.MQTT_WSS_PORT, 8884, plan.host, taken) : null;
    for (const [what, p, dflt] of [
      ['MQTT_PORT', tcp, 1883],
      ['MQTT_WS_PORT', ws, 9001],
    ] as const) {
      if (p.moved) process.stdout.write(`outpost: port ${dflt} is in use; ${what} moved to ${p.port}\n`);
    }
    const broker = startChild(
      'broker',
      join(root, 'broker', 'dist', 'main.js'),
      childEnv('broker', baseEnv, {
        MQTT_PORT: String(tcp.port),
        MQTT_WS_PORT: String(ws.port),
        ...(secure && wss ? { MQTT_TLS_PORT: String(secure.port), MQTT_WSS_PORT: String(wss.port) } : {}),
        MQTT_HOST: plan.host,
      }),
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
        host: plan.host,
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
    const what = plan.joinedSite ? `site "${plan.joinedSite}"` : 'external';
    lines.push(`  ${'MQTT broker'.padEnd(12)} ${mqttUrl.replace(/\/\/[^@/]*@/, '//')} (${what})`);
  }

  const ports: Record<string, number> = {};
  for (const s of selected) {
    ports[s.name] = (await choosePort(process.env[s.portEnv], s.defaultPort, plan.host, taken)).port;
  }
  const ctx: LaunchContext = { secrets, adminUsername, ports, host: plan.host, databaseUrls, tls: tls.on };
  // Each service logs in with its own generated account, on the embedded broker and on an external one
  // set up from infra/ (make-passwd.sh reads the same secrets); credentials in MQTT_URL or an explicit
  // MQTT_USERNAME win.
  const mqttCreds = (user: string) =>
    plan.externalCredentials ? {} : { MQTT_USERNAME: user, MQTT_PASSWORD: secrets.mqtt[user] ?? '' };

  // Every service starts at once and waits for the broker or PostgreSQL on its own: on a Pi most of a
  // service's start is loading its code, and loading them side by side takes the stack from the sum of
  // those times to roughly the longest one.
  const started = selected.map((s) => {
    const port = ports[s.name]!;
    const child = startChild(
      s.name,
      mainFile(root, s.name),
      // Only this service's own credentials (child-env.ts), not the launcher's whole environment.
      childEnv(s.name as ChildName, baseEnv, {
        ...s.env(ctx),
        ...mqttCreds(s.mqttUser),
        MQTT_URL: mqttUrl,
        PORT: String(port),
        HOST: plan.host,
        [s.portEnv]: String(port),
      }),
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
  // The controller has made its first user (it keeps the password's hash): no clear copy stays behind.
  const forgot = started.some(({ s }) => s.name === 'controller') && forgetAdminPassword(dataDir);
  for (const { s, port } of started) {
    lines.push(`  ${s.name.padEnd(12)} ${scheme}://${loopback}:${port}${plan.loginHints[s.name] ?? ''}`);
  }
  if (forgot) {
    lines.push(
      `  (the admin password is no longer kept in ${join(dataDir, SECRETS_FILE_NAME)}; change it with POST /api/auth/password)`,
    );
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

main().catch((err: unknown) => fail((err as Error).stack ?? String(err)));
