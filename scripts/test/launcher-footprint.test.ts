import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopOrphanServer } from '../src/embedded-db.js';
import {
  freePorts,
  type Launched,
  launcherScript,
  portEnv,
  root,
  signalGroup,
  sleep,
} from './helpers/processes.js';

/**
 * The whole stack's idle memory on the embedded defaults, as bench/footprint.mjs measures it (the
 * figure in bench/REPORT.md): every process the launcher runs, PostgreSQL's included, and the launcher
 * itself. The bound is that figure plus 10 %: a Pi with 512 MB runs this stack, and a module loaded at
 * start for nothing, or a service that keeps its start-up garbage, shows here first.
 */
const STACK_IDLE_RSS_MB = 642;
/** As the bench: the database connections a start-up burst opens close after 10 s idle. */
const IDLE_MS = 30_000;

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) {
    await stopOrphanServer(d);
    rmSync(d, { recursive: true, force: true });
  }
});

/** `npm start`'s own command line (package.json): its environment assignments and Node flags. */
function npmStart(): { env: Record<string, string>; flags: string[] } {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = (manifest.scripts.start as string).split(/\s+/).filter((w) => w && w !== 'exec');
  const env = Object.fromEntries(
    words
      .filter((w) => /^[A-Z_]+=/.test(w))
      .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  );
  return { env, flags: words.filter((w) => w.startsWith('--')) };
}

function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let kids: number[] = [];
    try {
      kids = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      // the thread ended meanwhile
    }
    for (const k of kids) out.push(k, ...descendants(k));
  }
  return out;
}

/** VmRSS in MB (10^6 bytes), as the bench counts it. */
const rssMb = (pid: number) =>
  (Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024) / 1e6;

describe('the stack as `npm start` runs it', () => {
  it(`idles in at most ${STACK_IDLE_RSS_MB} MB of RSS, every process included`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-footprint-'));
    dirs.push(dataDir);
    const ports = await freePorts(
      'MQTT_PORT',
      'MQTT_WS_PORT',
      'CONTROLLER_PORT',
      'RELAYNODE_PORT',
      'NOTIFIER_PORT',
      'SIMULATOR_PORT',
      'DASHBOARD_PORT',
    );
    const start = npmStart();
    const proc = spawn(process.execPath, [...start.flags, launcherScript], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NO_COLOR: '1',
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        ...start.env,
        ...portEnv(ports),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
    const run: Launched = { proc, output: () => out, ready: Promise.resolve(''), exited };
    try {
      await new Promise<void>((res, rej) => {
        const onData = (d: Buffer) => {
          out = (out + d.toString()).slice(-20_000);
          if (out.includes('Press Ctrl-C to stop.')) res();
        };
        proc.stdout.on('data', onData);
        proc.stderr.on('data', onData);
        void exited.then((code) => rej(new Error(`launcher exited ${code} before ready:\n${out}`)));
      });
      await sleep(IDLE_MS);
      const pids = [proc.pid as number, ...descendants(proc.pid as number)];
      const perProcess = pids.map((p) => {
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean);
        return `${cmd.find((a) => a.endsWith('main.js')) ?? cmd[0]}: ${rssMb(p).toFixed(1)} MB`;
      });
      const total = pids.reduce((sum, p) => sum + rssMb(p), 0);
      expect(total, perProcess.join('\n')).toBeLessThanOrEqual(STACK_IDLE_RSS_MB);
    } finally {
      await signalGroup(run, 'SIGINT');
    }
  }, 180_000);
});
