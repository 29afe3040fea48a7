import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** True when every named program is on PATH (or at the given absolute path). */
export function haveTools(...tools: string[]): boolean {
  return tools.every(
    (t) => spawnSync('sh', ['-c', `command -v ${t} || test -x /usr/sbin/${t}`]).status === 0,
  );
}

/**
 * Missing peers fail the suite on CI and skip it locally (the working agreement): returns true when
 * the caller should skip.
 */
export function skipWithout(...tools: string[]): boolean {
  if (haveTools(...tools)) return false;
  if (process.env.CI === 'true') {
    throw new Error(
      `required test peer(s) missing: ${tools.join(', ')} (apt-get install -y gpsd gpsd-clients socat)`,
    );
  }
  return true;
}

export function tempDir(prefix = 'sim-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export async function waitFor<T>(
  probe: () => T | undefined | null | false,
  timeoutMs = 5000,
  stepMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export interface PtyPair {
  /** The end the simulator writes to (its "USB serial device"). */
  input: string;
  /** The end a consumer (gpsd, a test reader) opens. */
  output: string;
  /** Stable symlinks to both ends; a new pair in the same directory reuses them, like a replugged adapter. */
  inputLink: string;
  outputLink: string;
  close(): Promise<void>;
}

/** A socat pseudo-terminal pair: whatever is written to one end comes out of the other. */
export async function ptyPair(dir: string): Promise<PtyPair> {
  const a = join(dir, 'gps-in');
  const b = join(dir, 'gps-out');
  const proc: ChildProcess = spawn(
    'socat',
    [`pty,raw,echo=0,link=${a},mode=666`, `pty,raw,echo=0,link=${b},mode=666`],
    { stdio: 'ignore' },
  );
  await waitFor(() => existsSync(a) && existsSync(b));
  return {
    input: realpathSync(a),
    output: realpathSync(b),
    inputLink: a,
    outputLink: b,
    close: () => stopProcess(proc),
  };
}

export function stopProcess(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
    setTimeout(() => proc.kill('SIGKILL'), 2000).unref();
  });
}

/** waitFor for a probe that has to await (an HTTP status, a file). */
export async function waitForAsync<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 5000,
  stepMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
