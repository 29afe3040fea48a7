import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const launcherScript = join(root, 'scripts', 'dist', 'start.js');
export const joinScript = join(root, 'scripts', 'dist', 'join.js');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What runs "on" a host starts through this: in the field each host is a machine of its own, here both
 * share two cores with the rest of `npm test`, which runs several test files at once. A higher CPU
 * priority gives them what their own machines would, so the faults the tests put on the link are the
 * only ones they meet, not a starved CPU. `nice` execs in place: the same pid and process group.
 */
export const ON_A_HOST = ['nice', '-n', '-10'];

/** Polls until probe gives a truthy value; a throwing probe counts as "not yet". */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Milliseconds until `check` holds, or a failure naming what did not happen within `ms`. */
export async function within(what: string, check: () => Promise<boolean>, ms: number): Promise<number> {
  const t0 = performance.now();
  await until(what, check, ms);
  return performance.now() - t0;
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

/** A free loopback port for each variable name, e.g. `freePorts('MQTT_PORT', 'CONTROLLER_PORT')`. */
export async function freePorts<K extends string>(...names: K[]): Promise<Record<K, number>> {
  const out = {} as Record<K, number>;
  for (const name of names) out[name] = await freePort();
  return out;
}

/** Ports as environment variables. */
export const portEnv = (ports: Record<string, number>): Record<string, string> =>
  Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)]));

export const portOpen = (port: number) =>
  new Promise<boolean>((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });

export interface Launched {
  proc: ChildProcess;
  output: () => string;
  /** Resolves with the output so far once the launcher says it is ready; rejects if it exits first. */
  ready: Promise<string>;
  exited: Promise<number | null>;
}

/**
 * `npm start` as a user runs it: its own process group (a shell's foreground job), so a test can send
 * a terminal's Ctrl-C, or SIGKILL the whole group as a power cut would.
 */
export function launch(
  env: Record<string, string>,
  args: string[] = [],
  cwd = root,
  opts: { netns?: string } = {},
): Launched {
  let out = '';
  // `ip netns exec` execs the launcher in place: the same pid and process group, on that host's network,
  // with a host's CPU priority (ON_A_HOST).
  const [cmd, argv] = opts.netns
    ? [
        ON_A_HOST[0]!,
        [...ON_A_HOST.slice(1), 'ip', 'netns', 'exec', opts.netns, process.execPath, launcherScript, ...args],
      ]
    : [process.execPath, [launcherScript, ...args]];
  const proc = spawn(cmd, argv, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
  const ready = new Promise<string>((res, rej) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('Press Ctrl-C to stop.')) res(out);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => rej(new Error(`launcher exited ${code} before ready:\n${out}`)));
  });
  ready.catch(() => undefined);
  return { proc, output: () => out, ready, exited };
}

/** Signals the launcher's whole process group; resolves when the launcher has exited. */
export async function signalGroup(run: Launched, signal: NodeJS.Signals, waitMs = 20_000): Promise<void> {
  if (run.proc.exitCode !== null || run.proc.signalCode !== null) return;
  try {
    process.kill(-run.proc.pid!, signal);
  } catch {
    return;
  }
  await Promise.race([run.exited, sleep(waitMs)]);
}
