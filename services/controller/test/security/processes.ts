import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../helpers/wait.js';

/** Built entry points of every service, as the launcher runs them. */
export const MAINS = {
  broker: fileURLToPath(new URL('../../../../broker/dist/main.js', import.meta.url)),
  controller: fileURLToPath(new URL('../../dist/main.js', import.meta.url)),
  relaynode: fileURLToPath(new URL('../../../relay-node/dist/main.js', import.meta.url)),
  notifier: fileURLToPath(new URL('../../../notifier/dist/main.js', import.meta.url)),
  simulator: fileURLToPath(new URL('../../../simulator/dist/main.js', import.meta.url)),
} as const;

export function assertBuilt(): void {
  const missing = Object.entries(MAINS).filter(([, path]) => !existsSync(path));
  if (missing.length) {
    throw new Error(`build first (npm run build): missing ${missing.map(([name]) => name).join(', ')}`);
  }
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr, in order. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a built service with only the given environment (and PATH), capturing stdout and stderr,
 * and resolves once a line containing `ready` appears.
 */
export async function startService(
  name: keyof typeof MAINS,
  env: Record<string, string>,
  ready: string,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [MAINS[name]], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout?.on('data', (b: Buffer) => chunks.push(b.toString()));
  child.stderr?.on('data', (b: Buffer) => chunks.push(b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const output = () => chunks.join('');
  try {
    await waitFor(() => output().includes(ready) || child.exitCode !== null, 45_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${name} did not start: ${(err as Error).message}\n${output()}`);
  }
  if (child.exitCode !== null) throw new Error(`${name} exited at start:\n${output()}`);
  return {
    name,
    child,
    output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** The `url` field of the first JSON log line containing `message`. */
export function urlFrom(proc: ServiceProcess, message: string): string {
  for (const line of proc.output().split('\n')) {
    if (!line.includes(message)) continue;
    try {
      const url = (JSON.parse(line) as { url?: string }).url;
      if (url) return url;
    } catch {
      // not a JSON line
    }
  }
  throw new Error(`${proc.name}: no "${message}" line with a url`);
}
