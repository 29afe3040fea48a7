import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const COLORS = [36, 35, 33, 32, 34, 31];
const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};
const useColor = process.stdout.isTTY && !process.env.NO_COLOR;

/** One pino JSON line as `info  message  key=value …`; anything else unchanged. */
export function formatLine(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const rec = JSON.parse(line) as Record<string, unknown>;
    const { level, msg, time, pid, hostname, service, name, component, ...rest } = rec;
    const lvl = typeof level === 'number' ? (LEVELS[level] ?? String(level)) : String(level ?? '');
    const extra = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    return [lvl.padEnd(5), component ? `[${component}]` : '', msg ?? '', extra].filter(Boolean).join(' ');
  } catch {
    return line;
  }
}

export interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<number | null>;
  /** The signal that stops it cleanly; SIGTERM when unset. */
  stopSignal?: NodeJS.Signals;
}

let colorIndex = 0;

/**
 * V8 settings per process, measured with bench/footprint.mjs and the benches (bench/REPORT.md). A young
 * generation capped at 1 MiB per semi-space keeps an idle service from holding the ~32 MB that start-up
 * grows it to. One V8 worker thread instead of Node's four saves each service the threads' stacks and
 * malloc arenas (about 5 MB a process); a service's garbage is small enough for one helper thread. The
 * broker keeps V8's defaults: its QoS 1 throughput fell with the semi-space cap.
 */
const SERVICE_V8 = ['--max-semi-space-size=1', '--v8-pool-size=1'];
export const NODE_ARGS: Record<string, string[]> = {
  notifier: SERVICE_V8,
  'relay-node': SERVICE_V8,
  controller: SERVICE_V8,
  simulator: SERVICE_V8,
  dashboard: SERVICE_V8,
};

/** Starts a node process whose output lines are prefixed with its name. */
export function startChild(name: string, script: string, env: NodeJS.ProcessEnv, cwd: string): Child {
  const proc = spawn(process.execPath, [...(NODE_ARGS[name] ?? []), script], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const color = COLORS[colorIndex++ % COLORS.length];
  const label = name.padEnd(10);
  const prefix = useColor ? `\u001b[${color}m${label}\u001b[0m│ ` : `${label}│ `;
  for (const stream of [proc.stdout, proc.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) =>
      process.stdout.write(`${prefix}${formatLine(line)}\n`),
    );
  }
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { name, proc, exited };
}

/**
 * SIGTERM, then SIGKILL after graceMs if it is still there. Resolves to '' for a clean exit, else to
 * what went wrong (`exit 1`, `killed after 10 s`).
 */
export async function stopChild(child: Child, graceMs = 10_000): Promise<string> {
  let forced = false;
  if (child.proc.exitCode === null && child.proc.signalCode === null) {
    child.proc.kill(child.stopSignal ?? 'SIGTERM');
    const timer = setTimeout(() => {
      forced = true;
      child.proc.kill('SIGKILL');
    }, graceMs);
    await child.exited;
    clearTimeout(timer);
  }
  if (forced) return `killed after ${graceMs / 1000} s`;
  const code = child.proc.exitCode;
  return code === 0 || code === null ? '' : `exit ${code}`;
}
