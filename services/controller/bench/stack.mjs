// The system under test as it really runs: broker, relay node and controller as `node dist/main.js`
// child processes on free loopback ports, a temporary DATA_DIR, and a fresh PostgreSQL database (on
// TEST_DATABASE_URL's server, else a throwaway one). Every child is killed and every temporary thing
// removed on the way out, whatever the way out is.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { startThrowawayServer } from '@outpost/scripts/embedded-db';
import { generateLeaseKeys } from '@outpost/runtime/lease-keys';
import pg from 'pg';

export const here = dirname(fileURLToPath(import.meta.url));
export const pkgDir = join(here, '..');
export const repoDir = join(pkgDir, '..', '..');
/**
 * Whose relay node and controller builds run (BENCH_SYSTEM_DIR: another checkout's root, built), so
 * ab.mjs compares two builds with this harness, broker and reference pipeline. Default: this checkout.
 */
export const systemDir = process.env.BENCH_SYSTEM_DIR || repoDir;

export const CREDENTIALS = { username: 'bench', password: 'bench-password-123' };
export const RELAYNODE_SECRET = 'bench-relaynode-secret';
export const RELAYNODE_ID = 'main';
/** The controller's JWT_SECRET, which the bare read reference also verifies tokens with. */
export const JWT_SECRET = 'bench-jwt-secret-0123456789abcdef';
export const PREFIX = DEFAULT_PREFIX;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const children = new Set();
const cleanups = [];

/** Runs fn on the way out (last registered first). */
export function onCleanup(fn) {
  cleanups.push(fn);
}

function killAll() {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}
process.on('exit', killAll);
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    // A second signal does not wait for the cleanup.
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write(`bench: ${sig}, cleaning up\n`);
    teardown().finally(() => process.exit(130));
  });
}

export const wasInterrupted = () => interrupted;

let tearing = null;
/** Stops the children politely (SIGTERM, then SIGKILL after 3 s), then runs the cleanups; once. */
export function teardown() {
  tearing ??= stopEverything();
  return tearing;
}

/** SIGTERM, then SIGKILL after 3 s; resolves once the child has exited. */
export function stopChild(c) {
  return new Promise((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const force = setTimeout(() => c.kill('SIGKILL'), 3000);
    c.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    c.kill('SIGTERM');
  });
}

async function stopEverything() {
  await Promise.all([...children].map(stopChild));
  children.clear();
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch (err) {
      process.stderr.write(`bench: cleanup failed: ${err.message}\n`);
    }
  }
}

/** A node child process whose recent output is kept for error messages. */
export function startNode(name, script, env, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: dirname(script),
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.benchName = name;
  child.output = '';
  const keep = (d) => {
    child.output = (child.output + d).slice(-6000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  children.add(child);
  return child;
}

export async function waitFor(what, child, probe, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`${child.benchName} exited (${child.exitCode ?? child.signalCode}):\n${child.output}`);
    }
    try {
      if (await probe()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}${child ? `:\n${child.output}` : ''}`);
    }
    await sleep(50);
  }
}

// One keep-alive connection per agent, like one dashboard or script talking to the controller.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

let clientSeq = 0;
/**
 * A distinct client address for each request, passed as X-Forwarded-For from the trusted loopback
 * proxy: the controller's per-client limit (30 requests/s) is then not what the bench measures.
 */
export function nextClientIp() {
  const n = clientSeq++ % 4096;
  return `10.77.${n >> 8}.${n & 255}`;
}

/** A small HTTP/1.1 request over a kept-alive connection; resolves {status, headers, body, json}. */
export function call(base, method, path, { body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      `${base}${path}`,
      {
        method,
        agent,
        headers: {
          'x-forwarded-for': nextClientIp(),
          ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}),
          ...headers,
        },
      },
      (res) => {
        const parts = [];
        res.on('data', (d) => parts.push(d));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, headers: res.headers, body: text, json });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

export function closeHttp() {
  agent.destroy();
}

/** A fresh database on TEST_DATABASE_URL's server, or on a throwaway server when it is unset. */
let databases = 0;
async function freshPostgres() {
  let admin = process.env.TEST_DATABASE_URL;
  if (!admin) {
    const server = await startThrowawayServer();
    onCleanup(() => server.stop());
    admin = server.url;
  }
  const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 2000 });
  await client.connect();
  databases += 1;
  const name = `outpost_bench_${process.pid}_${Date.now()}_${databases}`;
  await client.query(`CREATE DATABASE ${name}`);
  const serverVersion = (await client.query('SHOW server_version')).rows[0].server_version;
  await client.end();
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 2000 });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), label: `PostgreSQL ${serverVersion}` };
}

// BENCH_CONTROLLER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", applies to the controller only.
const controllerNodeArgs = (process.env.BENCH_CONTROLLER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const relaynodeNodeArgs = (process.env.BENCH_RELAYNODE_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** Starts broker, relay node and controller; returns what the benches need. */
export async function startStack({ systemDir: builds = systemDir } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-controller-bench-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const [mqttPort, wsPort, nodePort, ctlPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const mqttUrl = `mqtt://127.0.0.1:${mqttPort}`;

  const broker = startNode(
    'broker',
    join(repoDir, 'broker/dist/main.js'),
    {
      MQTT_HOST: '127.0.0.1',
      MQTT_PORT: String(mqttPort),
      MQTT_WS_PORT: String(wsPort),
      MQTT_ALLOW_ANONYMOUS: 'true',
      DATA_DIR: join(dataDir, 'broker'),
    },
    (process.env.BENCH_BROKER_NODE_ARGS ?? '').split(' ').filter(Boolean),
  );
  await waitFor('the broker', broker, () => broker.output.includes('MQTT broker listening'));

  const postgres = await freshPostgres();
  const database = postgres.label;

  // The controller signs the leases; the node trusts only the public half.
  const leaseKeys = generateLeaseKeys();
  const node = startNode('relay-node', join(builds, 'services/relay-node/dist/main.js'), {
    HOST: '127.0.0.1',
    RELAYNODE_PORT: String(nodePort),
    RELAYNODE_API_SECRET: RELAYNODE_SECRET,
    CONTROLLER_PUBLIC_KEY: leaseKeys.publicKey,
    RELAYNODE_ID,
    GPIO_MODE: 'mock',
    // The EPO cycles press the mock contact through /api/dev/epo.
    DEV_MODE: 'true',
    HARDWARE_SAFETY_ENABLED: 'true',
    MQTT_URL: mqttUrl,
    DATA_DIR: join(dataDir, 'relay-node'),
  }, relaynodeNodeArgs);
  const nodeBase = `http://127.0.0.1:${nodePort}`;

  const controller = startNode(
    'controller',
    join(builds, 'services/controller/dist/main.js'),
    {
      HOST: '127.0.0.1',
      PORT: String(ctlPort),
      JWT_SECRET,
      ADMIN_USERNAME: CREDENTIALS.username,
      ADMIN_PASSWORD: CREDENTIALS.password,
      RELAYNODE_API_SECRET: RELAYNODE_SECRET,
      LEASE_SIGNING_KEY: leaseKeys.privateKey,
      RELAYNODE_ID,
      GPIO_MODE: 'mock',
      MQTT_URL: mqttUrl,
      DATA_DIR: join(dataDir, 'controller'),
      TRUSTED_PROXIES: '127.0.0.1',
      DATABASE_URL: postgres.url,
    },
    controllerNodeArgs,
  );
  const base = `http://127.0.0.1:${ctlPort}`;

  const healthy = async (url) => (await call(url, 'GET', '/health')).status === 200;
  await waitFor('the relay node', node, () => healthy(nodeBase));
  await waitFor('the controller', controller, () => healthy(base), 60_000);

  const login = await call(base, 'POST', '/api/auth/login', { body: CREDENTIALS });
  if (login.status !== 200 || !login.json?.access_token) {
    throw new Error(`login failed: ${login.status} ${login.body}`);
  }
  return {
    base,
    nodeBase,
    mqttUrl,
    database,
    databaseUrl: postgres.url,
    token: login.json.access_token,
    processes: { broker, node, controller },
  };
}
