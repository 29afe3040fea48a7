import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from './peers.js';

export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** The built service as a child process, with what it printed. */
export interface MainProcess {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** JSON log lines printed so far. */
  logs: () => Array<Record<string, unknown>>;
  /** Resolves with the HTTP base URL once the service logged that it listens. */
  url: () => Promise<string>;
  exited: Promise<number | null>;
  stop: () => Promise<void>;
}

/**
 * Starts dist/main.js with only `env` (plus PATH): nothing of the test runner's environment leaks in.
 * LOG_LEVEL is info (whatever `env` says) so the listening URL is printed.
 */
export function startMain(env: Record<string, string>): MainProcess {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} missing: build first (npx tsc -p tsconfig.build.json)`);
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d) => {
    out += d;
  });
  proc.stderr?.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const logs = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    logs,
    exited,
    url: async () => {
      const line = await waitFor(() => {
        if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}: ${err}`);
        return logs().find((l) => l.msg === 'simulator listening');
      }, 10_000);
      return String(line.url);
    },
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}
