import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BrokerUnderTest {
  name: string;
  version: string;
  pid: number;
  port: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function waitForPort(port: number, proc: ChildProcess, output: () => string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (proc.exitCode !== null) return reject(new Error(`exited with ${proc.exitCode}: ${output()}`));
      const sock = createConnection({ port, host: '127.0.0.1' });
      sock.once('connect', () => {
        sock.destroy();
        resolve();
      });
      sock.once('error', () => {
        sock.destroy();
        if (Date.now() > deadline) return reject(new Error(`port ${port} not open: ${output()}`));
        setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

function capture(proc: ChildProcess): () => string {
  let out = '';
  proc.stdout?.on('data', (d) => {
    out = (out + d).slice(-4000);
  });
  proc.stderr?.on('data', (d) => {
    out = (out + d).slice(-4000);
  });
  return () => out;
}

function stopper(proc: ChildProcess, cleanup: () => void): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      const done = () => {
        cleanup();
        resolve();
      };
      if (proc.exitCode !== null || proc.signalCode !== null) return done();
      const force = setTimeout(() => proc.kill('SIGKILL'), 5000);
      proc.once('exit', () => {
        clearTimeout(force);
        done();
      });
      proc.kill('SIGTERM');
    });
}

/** A private Mosquitto on a free loopback port, open to anonymous clients, no connection or queue cap. */
export async function startMosquitto(): Promise<BrokerUnderTest> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'outpost-bench-mosquitto-'));
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'max_connections -1',
      // Its default queue of 1000 per client drops what a fan-in subscriber has not taken yet; the
      // embedded broker drops nothing, so both must deliver everything for the throughputs to compare.
      'max_queued_messages 0',
      'set_tcp_nodelay true',
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type warning',
      '',
    ].join('\n'),
  );
  const version = /mosquitto version (\S+)/.exec(
    (() => {
      try {
        return execFileSync('mosquitto', ['-h'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (err) {
        return String((err as { stdout?: string }).stdout ?? '');
      }
    })(),
  )?.[1];
  // 1,000 clients need more descriptors than some shells allow by default.
  const proc = spawn(
    'sh',
    ['-c', 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec mosquitto -c "$1"', 'sh', conf],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = capture(proc);
  await waitForPort(port, proc, output);
  return {
    name: 'mosquitto',
    version: version ?? 'unknown',
    pid: proc.pid as number,
    port,
    stop: stopper(proc, () => rmSync(dir, { recursive: true, force: true })),
  };
}

/**
 * The embedded broker as it really runs: `node dist/main.js`, anonymous, no WebSocket clients. Every
 * bench client comes from 127.0.0.1, so the per-address cap is lifted as Mosquitto's is.
 * BENCH_BROKER_NODE_ARGS adds Node flags, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` for a profile.
 */
export async function startEmbedded(): Promise<BrokerUnderTest> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'outpost-bench-aedes-'));
  const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'main.js');
  const aedesPkg = join(dirname(fileURLToPath(import.meta.resolve('aedes'))), 'package.json');
  const aedesVersion = (JSON.parse(readFileSync(aedesPkg, 'utf8')) as { version: string }).version;
  const nodeArgs = (process.env.BENCH_BROKER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, main], {
    env: {
      PATH: process.env.PATH ?? '',
      MQTT_HOST: '127.0.0.1',
      MQTT_PORT: String(port),
      MQTT_WS_PORT: '0',
      MQTT_ALLOW_ANONYMOUS: 'true',
      MQTT_MAX_CONNECTIONS_PER_IP: '100000',
      DATA_DIR: dir,
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = capture(proc);
  await waitForPort(port, proc, output);
  return {
    name: 'embedded (aedes)',
    version: `aedes ${aedesVersion}`,
    pid: proc.pid as number,
    port,
    stop: stopper(proc, () => rmSync(dir, { recursive: true, force: true })),
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, i.e. 11 and 12 after the command name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}
