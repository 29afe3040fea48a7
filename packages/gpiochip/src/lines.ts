import type { ToolProcess, ToolRunner } from './tools.js';
import { toolComplaint } from './tools.js';

export type Bias = 'pull-up' | 'pull-down' | 'disabled';

/** One line request as libgpiod v2 describes it: chip and offset, consumer, bias, active-low, debounce. */
export interface LineSettings {
  chip: string;
  offset: number;
  consumer: string;
  bias?: Bias | undefined;
  /** The tools see logical values; callers of this module always deal in physical levels. */
  activeLow?: boolean | undefined;
  debounceMs?: number | undefined;
}

function commonArgs(s: LineSettings): string[] {
  const args = ['-c', s.chip, '-C', s.consumer];
  if (s.bias) args.push('-b', s.bias);
  if (s.activeLow) args.push('-l');
  return args;
}

const flip = (s: LineSettings, v: number): number => (s.activeLow ? 1 - v : v) & 1;

/** Resolves once `ready` matches a stdout line; rejects if the tool exits first, with its complaint. */
function untilReady(p: ToolProcess, ready: RegExp, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const onOut = (d: Buffer | string) => {
      out += d.toString();
      if (ready.test(out)) {
        p.stdout.off('data', onOut);
        p.off('exit', onExit);
        resolve();
      }
    };
    const onErr = (d: Buffer | string) => {
      err += d.toString();
    };
    const onExit = () => {
      p.stdout.off('data', onOut);
      setImmediate(() => reject(new Error(`${what}: ${toolComplaint(err)}`)));
    };
    p.stdout.on('data', onOut);
    p.stderr.on('data', onErr);
    p.once('exit', onExit);
  });
}

function exited(p: ToolProcess): Promise<void> {
  return new Promise((resolve) => {
    p.once('exit', () => resolve());
  });
}

/**
 * An output line held by a gpioset process for as long as the value must stand (a line's state after
 * its holder exits is undefined). A new value replaces the holder; writes are applied in order.
 */
export class OutputLine {
  private holder: ToolProcess | null = null;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly runner: ToolRunner,
    readonly settings: LineSettings,
    private readonly onError: (err: Error) => void,
  ) {}

  /** Queues a physical level; the returned promise settles when it is on the pin (or failed). */
  set(level: number): Promise<void> {
    const next = this.chain.then(() => this.apply(level));
    this.chain = next.catch((err: Error) => this.onError(err));
    return next;
  }

  settled(): Promise<void> {
    return this.chain;
  }

  private async apply(level: number): Promise<void> {
    if (this.closed) return;
    await this.dropHolder();
    const p = this.runner.spawn('gpioset', [
      ...commonArgs(this.settings),
      '--banner',
      `${this.settings.offset}=${flip(this.settings, level)}`,
    ]);
    // Tracked before it is ready, so the exit path kills a holder still starting up as well.
    this.holder = p;
    try {
      await untilReady(p, /Setting line/, `GPIO${this.settings.offset}`);
    } catch (err) {
      if (this.holder === p) this.holder = null;
      throw err;
    }
    p.once('exit', () => {
      if (this.holder !== p) return;
      this.holder = null;
      if (!this.closed)
        this.onError(new Error(`GPIO${this.settings.offset}: gpioset exited; the line is no longer held`));
    });
  }

  private async dropHolder(): Promise<void> {
    const p = this.holder;
    if (!p) return;
    this.holder = null;
    const gone = exited(p);
    p.kill('SIGTERM');
    await gone;
  }

  /**
   * The exit path: nothing asynchronous will run again, so the holder is killed and the level written
   * by a gpioset that sets and exits. The kernel frees the old request only once the holder is gone.
   */
  releaseSync(level: number): boolean {
    this.closed = true;
    this.holder?.kill('SIGKILL');
    this.holder = null;
    const args = [
      ...commonArgs(this.settings),
      '-t',
      '0',
      `${this.settings.offset}=${flip(this.settings, level)}`,
    ];
    for (let attempt = 0; attempt < 40; attempt++) {
      if (this.runner.spawnSync('gpioset', args).status === 0) return true;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
    return false;
  }

  async release(): Promise<void> {
    this.closed = true;
    await this.chain;
    await this.dropHolder();
  }
}

/**
 * An input line: one gpioget for the level at start, then a gpiomon holding the line and reporting
 * each edge (with the kernel's debounce when asked). No polling: a level only changes on an edge.
 */
export class InputLine {
  private monitor: ToolProcess | null = null;
  private closed = false;

  constructor(
    private readonly runner: ToolRunner,
    readonly settings: LineSettings,
    private readonly onLevel: (level: number) => void,
    private readonly onError: (err: Error) => void,
  ) {}

  async start(): Promise<void> {
    const s = this.settings;
    const initial = await this.readOnce();
    this.onLevel(initial);
    if (this.closed) return;
    const args = [...commonArgs(s)];
    if (s.debounceMs) args.push('-p', `${s.debounceMs}ms`);
    args.push('--banner', '-F', '%o %E', String(s.offset));
    const p = this.runner.spawn('gpiomon', args);
    let buf = '';
    p.stdout.on('data', (d: Buffer | string) => {
      buf += d.toString();
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const m = /^(\d+) (rising|falling)$/.exec(buf.slice(0, nl).trim());
        buf = buf.slice(nl + 1);
        if (m) this.onLevel(flip(s, m[2] === 'rising' ? 1 : 0));
        nl = buf.indexOf('\n');
      }
    });
    await untilReady(p, /Monitoring line/, `GPIO${s.offset}`);
    this.monitor = p;
    p.once('exit', () => {
      if (this.monitor !== p) return;
      this.monitor = null;
      if (!this.closed) this.onError(new Error(`GPIO${s.offset}: gpiomon exited; edges are no longer seen`));
    });
  }

  private readOnce(): Promise<number> {
    const s = this.settings;
    const p = this.runner.spawn('gpioget', [...commonArgs(s), '--numeric', String(s.offset)]);
    return new Promise((resolve, reject) => {
      let out = '';
      let err = '';
      p.stdout.on('data', (d: Buffer | string) => {
        out += d.toString();
      });
      p.stderr.on('data', (d: Buffer | string) => {
        err += d.toString();
      });
      p.once('exit', (code) => {
        setImmediate(() => {
          const v = out.trim();
          if (code === 0 && (v === '0' || v === '1')) resolve(flip(s, Number(v)));
          else reject(new Error(`GPIO${s.offset}: ${toolComplaint(err)}`));
        });
      });
    });
  }

  stop(): void {
    this.closed = true;
    this.monitor?.kill('SIGTERM');
    this.monitor = null;
  }
}
