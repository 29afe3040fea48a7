import { EventEmitter } from 'node:events';
import { findHeaderChip, type HeaderChip } from './chip.js';
import { type Bias, InputLine, type LineSettings, OutputLine } from './lines.js';
import { pinOffset } from './pins.js';
import { systemTools, type ToolRunner } from './tools.js';
import { type PinUse, validatePins } from './validate.js';

const MODES = Object.freeze({ INPUT: 0, OUTPUT: 1, ANALOG: 2, PWM: 3, SERVO: 4 });

export interface LineOptions {
  bias?: Bias;
  activeLow?: boolean;
  /** Kernel debounce for edge events (libgpiod debounce period). */
  debounceMs?: number;
}

export interface GpioChipOptions {
  /** Shown by gpioinfo as the holder of every line this process requests. */
  consumer: string;
  runner?: ToolRunner;
  devDir?: string;
  /** Checked against the chip before the plugin is handed out. */
  validate?: PinUse[];
  /** Per-pin request settings beyond what johnny-five asks for, keyed by GPIOn or offset. */
  lines?: Record<string, LineOptions>;
}

interface PinState {
  supportedModes: number[];
  mode: number | null;
  /** Firmata convention: the level written while an input picks the pull-up; kept as the output latch. */
  latch: number;
  bias: Bias | undefined;
  report: number;
  analogChannel: number;
  output: OutputLine | null;
  input: InputLine | null;
  level: number | null;
}

/**
 * A johnny-five IO plugin (io-plugins spec) over the Linux GPIO character device, through libgpiod v2's
 * tools. Each process holds only the lines it uses, under its own consumer name, as an ordinary user in
 * the gpio group; the header chip is found by its label, so Pi 1 to Pi 5 look alike.
 */
export class GpioChipIO extends EventEmitter {
  readonly name = 'GpioChip';
  readonly MODES = MODES;
  readonly HIGH = 1;
  readonly LOW = 0;
  readonly defaultLed = -1;
  readonly analogPins: number[] = [];
  readonly pins: PinState[];
  isReady = false;
  private closed = false;

  private constructor(
    readonly chip: HeaderChip,
    private readonly runner: ToolRunner,
    private readonly opts: GpioChipOptions,
  ) {
    super();
    this.pins = Array.from({ length: chip.lines }, () => ({
      supportedModes: [MODES.INPUT, MODES.OUTPUT],
      mode: null,
      latch: 0,
      bias: undefined,
      report: 0,
      analogChannel: 127,
      output: null,
      input: null,
      level: null,
    }));
    setImmediate(() => {
      this.emit('connect');
      this.isReady = true;
      this.emit('ready');
    });
  }

  /** Finds the header chip and checks the configured lines; throws GpioUnavailableError with one line. */
  static async open(opts: GpioChipOptions): Promise<GpioChipIO> {
    const runner = opts.runner ?? systemTools;
    const chip = await findHeaderChip(runner, opts.devDir);
    await validatePins(runner, chip, opts.validate ?? []);
    return new GpioChipIO(chip, runner, opts);
  }

  normalize(pin: number | string): number {
    return pinOffset(pin);
  }

  pinMode(pin: number | string, mode: number): this {
    const n = this.normalize(pin);
    const p = this.pinAt(n);
    if (p.mode === mode) return this;
    p.mode = mode;
    if (mode === MODES.OUTPUT) {
      this.stopInput(p);
      p.output = new OutputLine(this.runner, this.settings(n, p), (err) => this.fail(err));
      p.level = p.latch;
      void p.output.set(p.latch).catch(() => undefined);
    } else if (mode === MODES.INPUT) {
      void this.releaseOutput(p);
    }
    return this;
  }

  digitalWrite(pin: number | string, value: number): this {
    const n = this.normalize(pin);
    const p = this.pinAt(n);
    const level = value ? 1 : 0;
    p.latch = level;
    if (p.mode === MODES.OUTPUT && p.output) {
      if (p.level !== level) void p.output.set(level).catch(() => undefined);
      p.level = level;
      return this;
    }
    const bias: Bias | undefined = level ? 'pull-up' : this.configured(n).bias;
    if (bias !== p.bias) {
      p.bias = bias;
      // A watcher already running asked for the old bias: request the line again.
      if (p.input) {
        this.stopInput(p);
        this.startInput(n, p);
      }
    }
    return this;
  }

  digitalRead(pin: number | string, handler: (value: number) => void): this {
    const n = this.normalize(pin);
    const p = this.pinAt(n);
    if (p.mode !== MODES.INPUT) this.pinMode(n, MODES.INPUT);
    p.report = 1;
    this.on(`digital-read-${n}`, handler);
    if (!p.input) this.startInput(n, p);
    else if (p.level !== null) {
      const level = p.level;
      setImmediate(() => handler(level));
    }
    return this;
  }

  /** Resolves when every queued output write has reached its line. */
  async settled(): Promise<void> {
    await Promise.all(this.pins.map((p) => p.output?.settled()));
  }

  /** Exit path, synchronous: outputs keep their latched level as they are released, inputs are freed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pins) {
      this.stopInput(p);
      p.output?.releaseSync(p.latch);
      p.output = null;
    }
    this.removeAllListeners();
  }

  analogRead(): never {
    throw new Error('GpioChipIO: the Raspberry Pi header has no analog inputs');
  }

  private startInput(n: number, p: PinState): void {
    const line = new InputLine(
      this.runner,
      this.settings(n, p),
      (level) => {
        p.level = level;
        this.emit(`digital-read-${n}`, level);
      },
      (err) => this.fail(err),
    );
    p.input = line;
    line.start().catch((err: Error) => {
      if (p.input === line) p.input = null;
      this.fail(err);
    });
  }

  private stopInput(p: PinState): void {
    p.input?.stop();
    p.input = null;
  }

  private async releaseOutput(p: PinState): Promise<void> {
    const out = p.output;
    p.output = null;
    p.level = null;
    await out?.release();
  }

  private settings(n: number, p: PinState): LineSettings {
    const extra = this.configured(n);
    return {
      chip: this.chip.name,
      offset: n,
      consumer: this.opts.consumer,
      bias: p.mode === MODES.INPUT ? (p.bias ?? extra.bias) : undefined,
      activeLow: extra.activeLow,
      debounceMs: p.mode === MODES.INPUT ? extra.debounceMs : undefined,
    };
  }

  private configured(n: number): LineOptions {
    const l = this.opts.lines ?? {};
    return l[`GPIO${n}`] ?? l[String(n)] ?? {};
  }

  private fail(err: Error): void {
    if (this.closed) return;
    // johnny-five's Board forwards an IO plugin's 'error'; with no listener it would throw, which on a
    // relay node is the intended outcome (the crash path drives the relay OFF).
    this.emit('error', err);
  }

  private pinAt(n: number): PinState {
    const p = this.pins[n];
    if (!p) throw new Error(`GpioChipIO: no line ${n} on ${this.chip.name} (${this.chip.lines} lines)`);
    return p;
  }
}
