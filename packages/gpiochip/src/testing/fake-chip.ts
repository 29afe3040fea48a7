import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { GpiodTool, SyncResult, ToolProcess, ToolRunner } from '../tools.js';

/**
 * A GPIO chip as the libgpiod v2 tools present it: line requests that fail while another request holds
 * the line, bias and active-low, values, and edge events with debounce. Every process spawned through
 * `runner()` shares the chip, so two runners are two processes on one Pi. The code under test is the
 * same as on a Pi; only the tools are replaced.
 */

type Bias = 'pull-up' | 'pull-down' | 'disabled';

interface FakeLine {
  name: string;
  consumer: string | null;
  direction: 'input' | 'output';
  activeLow: boolean;
  bias: Bias | null;
  output: number;
  /** What the world applies to the pin; null leaves it to the bias (floating reads low). */
  external: number | null;
  watchers: Set<(level: number) => void>;
}

export interface FakeChipOptions {
  name?: string;
  label?: string;
  lines?: number;
  /** gpiodetect skips chips the user may not open: the user is not in the gpio group. */
  unreadable?: boolean;
  /** Other chips gpiodetect lists before this one (a Pi 5's RP1 is not always gpiochip0). */
  others?: { name: string; label: string; lines: number }[];
  /** What `--version` prints: Debian 12 and Raspberry Pi OS bookworm ship the v1 tools. */
  toolsVersion?: string;
}

export class FakeChip {
  readonly name: string;
  readonly label: string;
  readonly unreadable: boolean;
  readonly others: { name: string; label: string; lines: number }[];
  readonly toolsVersion: string;
  readonly lines: FakeLine[];
  /** Every argv run, for tests that care how the tools were called. */
  readonly calls: { tool: GpiodTool; args: string[] }[] = [];
  /** Every level change on an output line, in order: what a logic analyser on the header would see. */
  readonly outputs: { offset: number; level: number }[] = [];

  constructor(opts: FakeChipOptions = {}) {
    this.name = opts.name ?? 'gpiochip0';
    this.label = opts.label ?? 'pinctrl-bcm2835';
    this.unreadable = opts.unreadable ?? false;
    this.others = opts.others ?? [];
    this.toolsVersion = opts.toolsVersion ?? '2.2.1';
    this.lines = Array.from({ length: opts.lines ?? 54 }, (_, i) => ({
      name: `GPIO${i}`,
      consumer: null,
      direction: 'input' as const,
      activeLow: false,
      bias: null,
      output: 0,
      external: null,
      watchers: new Set(),
    }));
  }

  /** A /dev directory holding this chip's device node (the plugin looks there first). */
  devDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'fake-dev-'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, this.name), '');
    return dir;
  }

  /** The physical level on the pin. */
  level(offset: number): number {
    const l = this.line(offset);
    if (l.direction === 'output') return l.output;
    if (l.external !== null) return l.external;
    return l.bias === 'pull-up' ? 1 : 0;
  }

  /** What the wiring does to an input: 1 or 0 driven, null open (the bias decides). */
  drive(offset: number, level: number | null): void {
    const before = this.level(offset);
    this.line(offset).external = level;
    this.changed(offset, before);
  }

  holder(offset: number): string | null {
    return this.line(offset).consumer;
  }

  direction(offset: number): 'input' | 'output' {
    return this.line(offset).direction;
  }

  bias(offset: number): Bias | null {
    return this.line(offset).bias;
  }

  /** Another program holding a line (a forgotten gpioset, a kernel driver). */
  hold(offset: number, consumer: string): void {
    this.line(offset).consumer = consumer;
  }

  runner(): ToolRunner {
    return {
      spawn: (tool, args) => this.spawn(tool, args),
      spawnSync: (tool, args) => this.spawnSync(tool, args),
    };
  }

  private line(offset: number): FakeLine {
    const l = this.lines[offset];
    if (!l) throw new Error(`fake chip: no line ${offset}`);
    return l;
  }

  private changed(offset: number, before: number): void {
    const after = this.level(offset);
    if (after === before) return;
    if (this.line(offset).direction === 'output') this.outputs.push({ offset, level: after });
    for (const w of this.line(offset).watchers) w(after);
  }

  private spawnSync(tool: GpiodTool, args: string[]): SyncResult {
    const p = this.spawn(tool, args);
    const r = p as FakeProcess;
    return { status: r.syncStatus ?? 1, stdout: r.syncOut, stderr: r.syncErr };
  }

  private spawn(tool: GpiodTool, args: string[]): ToolProcess {
    this.calls.push({ tool, args });
    const p = new FakeProcess();
    if (args.includes('--version')) {
      p.finish(
        0,
        '',
        `${tool} (libgpiod) v${this.toolsVersion}\nCopyright (C) 2017-2023 Bartosz Golaszewski\n`,
      );
      return p;
    }
    const opts = parseArgs(args);
    const fail = (msg: string) => p.finish(1, `${tool}: ${msg}\n`);
    if (tool === 'gpiodetect') {
      const chips = this.unreadable
        ? []
        : [...this.others, { name: this.name, label: this.label, lines: this.lines.length }];
      p.finish(0, '', chips.map((c) => `${c.name} [${c.label}] (${c.lines} lines)\n`).join(''));
      return p;
    }
    if (opts.chip !== this.name && opts.chip !== `/dev/${this.name}`) {
      fail(`cannot find GPIO chip character device '${opts.chip}'`);
      return p;
    }
    const offsets = opts.lines.map((l) => Number(l.split('=')[0]));
    const outOfRange = offsets.find((o) => !(o >= 0 && o < this.lines.length));
    if (tool === 'gpioinfo') {
      const rows = offsets
        .filter((o) => o !== outOfRange)
        .map((o) => {
          const l = this.line(o);
          const attrs = [l.direction, l.activeLow ? 'active-low' : '', l.bias ? `bias=${l.bias}` : '']
            .filter(Boolean)
            .join(' ');
          const consumer = l.consumer ? ` consumer="${l.consumer}"` : '';
          return `${this.name} ${o}\t${`"${l.name}"`.padEnd(16)}\t${attrs}${consumer}\n`;
        })
        .join('');
      if (outOfRange !== undefined) {
        p.finish(1, `gpioinfo: offset ${outOfRange} is out of range on chip '${opts.chip}'\n`, rows);
      } else p.finish(0, '', rows);
      return p;
    }
    if (outOfRange !== undefined) {
      fail(`offset ${outOfRange} is out of range on chip '${opts.chip}'`);
      return p;
    }
    const busy = offsets.find((o) => this.line(o).consumer !== null);
    if (busy !== undefined) {
      fail(`unable to request lines on chip '/dev/${this.name}': Device or resource busy`);
      return p;
    }
    const claim = (dir: 'input' | 'output') => {
      for (const o of offsets) {
        const l = this.line(o);
        const before = this.level(o);
        l.consumer = opts.consumer;
        l.direction = dir;
        l.activeLow = opts.activeLow;
        if (opts.bias) l.bias = opts.bias;
        this.changed(o, before);
      }
    };
    const release = () => {
      for (const o of offsets) {
        const l = this.line(o);
        // As the kernel does: the request goes, its settings stay, the pin keeps what it had.
        l.consumer = null;
      }
    };
    const logical = (o: number) => (this.level(o) ^ (opts.activeLow ? 1 : 0)) & 1;

    if (tool === 'gpioget') {
      claim('input');
      const out = offsets.map((o) =>
        opts.numeric ? String(logical(o)) : `"${o}"=${logical(o) ? 'active' : 'inactive'}`,
      );
      release();
      p.finish(0, '', `${out.join(' ')}\n`);
      return p;
    }
    if (tool === 'gpioset') {
      const values = opts.lines.map((l) => Number(l.split('=')[1]));
      for (const [i, o] of offsets.entries()) {
        const l = this.line(o);
        const before = this.level(o);
        l.output = ((values[i] ?? 0) ^ (opts.activeLow ? 1 : 0)) & 1;
        l.direction = 'output';
        this.changed(o, before);
      }
      claim('output');
      if (opts.toggle === '0') {
        release();
        p.finish(0, '', '');
        return p;
      }
      p.onKill = release;
      if (opts.banner) p.say(`Setting line ${offsets.map((o) => `'${o}'`).join(', ')}...\n`);
      return p;
    }
    // gpiomon
    claim('input');
    const watchers: [FakeLine, (level: number) => void][] = [];
    for (const o of offsets) {
      const l = this.line(o);
      let reported = logical(o);
      let timer: NodeJS.Timeout | null = null;
      const report = () => {
        const now = logical(o);
        if (now === reported) return;
        reported = now;
        p.say(
          (opts.format ?? '%o %E')
            .replace('%o', String(o))
            .replace('%E', now ? 'rising' : 'falling')
            .replace('%e', now ? '1' : '2') + '\n',
        );
      };
      const w = () => {
        if (!opts.debounceMs) return report();
        // Kernel debounce: an edge is reported once the level has been stable for the period.
        if (timer) clearTimeout(timer);
        timer = setTimeout(report, opts.debounceMs);
      };
      l.watchers.add(w);
      watchers.push([l, w]);
    }
    p.onKill = () => {
      for (const [l, w] of watchers) l.watchers.delete(w);
      release();
    };
    if (opts.banner) p.say(`Monitoring line ${offsets.map((o) => `'${o}'`).join(', ')}...\n`);
    return p;
  }
}

interface ParsedArgs {
  chip: string;
  consumer: string;
  bias: Bias | null;
  activeLow: boolean;
  banner: boolean;
  numeric: boolean;
  toggle: string | null;
  format: string | null;
  debounceMs: number;
  lines: string[];
}

function parseArgs(args: string[]): ParsedArgs {
  const r: ParsedArgs = {
    chip: '',
    consumer: 'gpiod',
    bias: null,
    activeLow: false,
    banner: false,
    numeric: false,
    toggle: null,
    format: null,
    debounceMs: 0,
    lines: [],
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    const next = () => args[++i] ?? '';
    if (a === '-c' || a === '--chip') r.chip = next();
    else if (a === '-C' || a === '--consumer') r.consumer = next();
    else if (a === '-b' || a === '--bias') r.bias = next() as Bias;
    else if (a === '-l' || a === '--active-low') r.activeLow = true;
    else if (a === '--banner') r.banner = true;
    else if (a === '--numeric') r.numeric = true;
    else if (a === '-t' || a === '--toggle') r.toggle = next();
    else if (a === '-F' || a === '--format') r.format = next();
    else if (a === '-p' || a === '--debounce-period') r.debounceMs = Number.parseInt(next(), 10);
    else r.lines.push(a);
  }
  return r;
}

/** A tool process: stdout and stderr streams, 'exit' once, killable. */
class FakeProcess extends EventEmitter implements ToolProcess {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  onKill: (() => void) | null = null;
  syncStatus: number | null = null;
  syncOut = '';
  syncErr = '';
  private done = false;

  say(text: string): void {
    this.syncOut += text;
    setImmediate(() => {
      if (!this.done) this.stdout.write(text);
    });
  }

  finish(code: number, stderr: string, stdout = ''): void {
    this.syncStatus = code;
    this.syncOut += stdout;
    this.syncErr += stderr;
    this.done = true;
    setImmediate(() => {
      if (stdout) this.stdout.write(stdout);
      if (stderr) this.stderr.write(stderr);
      this.emit('exit', code, null);
    });
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.done) return false;
    this.done = true;
    // The kernel frees a request when its holder dies, before the parent hears of it.
    this.onKill?.();
    setImmediate(() => this.emit('exit', null, signal));
    return true;
  }
}
