import { generateLeaseKeys } from '@outpost/runtime/lease-keys';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningBroker, startBroker } from '@outpost/broker';
import { isCI } from '@outpost/runtime/testing';
import { waitFor } from './wait.js';

/** Real processes for the relay-link tests: the built controller and relay node, an embedded broker. */
export const CONTROLLER_MAIN = new URL('../../dist/main.js', import.meta.url).pathname;
export const RELAYNODE_MAIN = new URL('../../../relay-node/dist/main.js', import.meta.url).pathname;
export const built = existsSync(CONTROLLER_MAIN) && existsSync(RELAYNODE_MAIN);
if (!built && isCI()) throw new Error('controller and relay node must be built before the link tests');

export const SECRET = 'link-test-relaynode-secret';
export const JWT_SECRET = 'link-test-jwt-secret-0123456789';
export const PASSWORD = 'link-test-password';
export const PREFIX = 'linktest';
/** The controller's lease-signing key pair for this test run; the spawned relay nodes trust it. */
export const LEASE_KEYS = generateLeaseKeys();

export interface Proc {
  child: ChildProcess;
  lines: string[];
  url: string;
  port: number;
  /** Parsed pino lines. */
  logs(): Record<string, unknown>[];
  kill(signal?: NodeJS.Signals): Promise<void>;
}

async function spawnService(main: string, env: Record<string, string>, ready: string): Promise<Proc> {
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  const feed = (b: Buffer) => {
    const parts = (partial + b.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  };
  child.stdout?.on('data', feed);
  child.stderr?.on('data', feed);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor(() => lines.some((l) => l.includes(ready)) || child.exitCode !== null, 30_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  if (child.exitCode !== null) throw new Error(`${main} exited: ${lines.join('\n')}`);
  const url = JSON.parse(lines.find((l) => l.includes(ready)) as string).url as string;
  return {
    child,
    lines,
    url,
    port: Number(new URL(url).port),
    logs: () =>
      lines.flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}

export function tempDir(tag: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `${tag}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function spawnRelayNode(opts: {
  mqttUrl: string;
  dataDir: string;
  port?: number;
  extra?: Record<string, string>;
}): Promise<Proc> {
  return spawnService(
    RELAYNODE_MAIN,
    {
      RELAYNODE_API_SECRET: SECRET,
      CONTROLLER_PUBLIC_KEY: LEASE_KEYS.publicKey,
      MOCK_HAT_MODE: 'true',
      DEV_MODE: 'true',
      HARDWARE_SAFETY_ENABLED: 'true',
      MQTT_URL: opts.mqttUrl,
      MQTT_TOPIC_PREFIX: PREFIX,
      HOST: '127.0.0.1',
      PORT: String(opts.port ?? 0),
      DATA_DIR: opts.dataDir,
      // The tests' notification receivers are on loopback, which a node refuses by default.
      OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
      ...opts.extra,
    },
    'relay node listening',
  );
}

export function spawnController(opts: {
  mqttUrl: string;
  dataDir: string;
  /** A test database's URL (helpers/databases.ts). */
  databaseUrl: string;
  intervalSeconds: number;
  relaynodeUrl?: string;
  extra?: Record<string, string>;
}): Promise<Proc> {
  return spawnService(
    CONTROLLER_MAIN,
    {
      JWT_SECRET,
      ADMIN_PASSWORD: PASSWORD,
      DATA_DIR: opts.dataDir,
      DATABASE_URL: opts.databaseUrl,
      MQTT_URL: opts.mqttUrl,
      MQTT_TOPIC_PREFIX: PREFIX,
      PORT: '0',
      HOST: '127.0.0.1',
      GPIO_MODE: 'mock',
      DEV_MODE: 'true',
      HEARTBEAT_INTERVAL_SECONDS: String(opts.intervalSeconds),
      RELAYNODE_API_SECRET: SECRET,
      LEASE_SIGNING_KEY: LEASE_KEYS.privateKey,
      ...(opts.relaynodeUrl ? { RELAYNODE_URL: opts.relaynodeUrl } : {}),
      ...opts.extra,
    },
    'controller listening',
  );
}

export function embeddedBroker(port = 0): Promise<RunningBroker> {
  return startBroker({ port, wsPort: false, host: '127.0.0.1' });
}

/** REST client of the controller with a logged-in admin. */
export async function controllerClient(url: string) {
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  const { access_token } = (await login.json()) as { access_token: string };
  return clientWithToken(url, access_token);
}

export function clientWithToken(baseUrl: string, token: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? (method === 'POST' ? '{}' : undefined) : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      // biome-ignore lint/suspicious/noExplicitAny: tests inspect JSON bodies (objects and lists) freely
      body: (text ? JSON.parse(text) : {}) as any,
      headers: res.headers,
    };
  };
  return {
    token,
    withUrl: (u: string) => clientWithToken(u, token),
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body),
    state: async () => (await call('GET', '/api/generator/state')).body,
  };
}

/** The relay node's mock hardware view (GET /api/dev/status). */
export async function nodeStatus(nodeUrl: string): Promise<{
  relay_on: boolean;
  armed: boolean;
  physical_safety_engaged: boolean;
  failsafe_triggered: boolean;
}> {
  const res = await fetch(`${nodeUrl}/api/dev/status`, { headers: { 'X-API-Key': SECRET } });
  return (await res.json()) as Awaited<ReturnType<typeof nodeStatus>>;
}

/** Watches the node's relay for `ms` (REST, every 20 ms): whether it was ever seen ON. */
export async function relaySeenOn(nodeUrl: string, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  let seen = false;
  while (performance.now() < until) {
    if ((await nodeStatus(nodeUrl)).relay_on) seen = true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return seen;
}

export async function setEpo(nodeUrl: string, engaged: boolean): Promise<void> {
  const res = await fetch(`${nodeUrl}/api/dev/epo`, {
    method: 'POST',
    headers: { 'X-API-Key': SECRET, 'content-type': 'application/json' },
    body: JSON.stringify({ engaged }),
  });
  if (res.status !== 200) throw new Error(`EPO call failed: ${res.status}`);
}
