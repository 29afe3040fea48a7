import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * The last layer of the binding: Debian's libgpiod v2 command-line tools. Everything above speaks to the
 * kernel only through these processes, so a test can swap this one function for a fake chip.
 */
export type GpiodTool = 'gpiodetect' | 'gpioinfo' | 'gpioget' | 'gpioset' | 'gpiomon';

export interface ToolProcess extends EventEmitter {
  readonly stdout: Readable;
  readonly stderr: Readable;
  kill(signal?: NodeJS.Signals): boolean;
  on(event: 'exit', fn: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'exit', fn: (code: number | null, signal: NodeJS.Signals | null) => void): this;
}

export interface SyncResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface ToolRunner {
  spawn(tool: GpiodTool, args: string[]): ToolProcess;
  /** Only for the exit path, where nothing asynchronous runs any more. */
  spawnSync(tool: GpiodTool, args: string[]): SyncResult;
}

/** Exit status the tools never use themselves: the program is not installed. */
export const TOOL_MISSING = 127;

const SETPRIV = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'setpriv'))
  .find((path) => existsSync(path));

/**
 * Starts a helper that dies with this process. A gpioset outliving a killed relay node (OOM, SIGKILL)
 * would hold the relay ON with nobody left to fail safe, and an orphaned gpiomon would keep the EPO line
 * busy so the restarted node could not request it. util-linux's setpriv asks the kernel to kill the helper
 * when its parent goes; without setpriv the helper is started plainly.
 */
export function spawnTiedToParent(
  program: string,
  args: string[],
): ChildProcessByStdio<null, Readable, Readable> {
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
  return SETPRIV
    ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', program, ...args], { stdio })
    : spawn(program, args, { stdio });
}

export const systemTools: ToolRunner = {
  spawn(tool, args) {
    const child = spawnTiedToParent(tool, args);
    // A missing program surfaces as 'error' with no 'exit'; callers wait for 'exit' only.
    child.once('error', (err: NodeJS.ErrnoException) => {
      child.stderr.emit(
        'data',
        Buffer.from(`${tool}: ${err.code === 'ENOENT' ? 'not installed' : err.message}\n`),
      );
      child.emit('exit', err.code === 'ENOENT' ? TOOL_MISSING : 1, null);
    });
    return child as unknown as ToolProcess;
  },
  spawnSync(tool, args) {
    const r = spawnSync(tool, args, { encoding: 'utf8', timeout: 2_000 });
    const missing = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
    return { status: missing ? TOOL_MISSING : r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  },
};

export interface ToolOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a tool to completion and collects what it printed. */
export function runTool(runner: ToolRunner, tool: GpiodTool, args: string[]): Promise<ToolOutput> {
  return new Promise((resolve) => {
    const p = runner.spawn(tool, args);
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer | string) => {
      stdout += d.toString();
    });
    p.stderr.on('data', (d: Buffer | string) => {
      stderr += d.toString();
    });
    p.once('exit', (code) => {
      // Output already in the pipes is delivered before the streams end; give it one turn.
      setImmediate(() => resolve({ code, stdout, stderr }));
    });
  });
}

/** The tool's own last complaint, without its program-name prefix, for one-line errors. */
export function toolComplaint(stderr: string): string {
  const last = stderr.trim().split('\n').at(-1) ?? '';
  return last.replace(/^\S*(gpio\w+|setpriv): /, '') || 'no message';
}
