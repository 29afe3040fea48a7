import type { EventEmitter } from 'node:events';
import five from 'johnny-five';
import type { RelayOutput } from '../domain/relay-node.js';

/**
 * The relay (and the EPO input) through johnny-five, on whatever IO plugin the node runs: raspi-io on a
 * Pi, the in-memory MockIO elsewhere. The relay is written OFF the moment the board is ready.
 */

export interface IOPlugin extends EventEmitter {
  readonly MODES: { INPUT: number; OUTPUT: number };
  readonly HIGH?: number;
  readonly LOW?: number;
  isReady: boolean;
  name?: string;
  pinMode(pin: number | string, mode: number): unknown;
  digitalWrite(pin: number | string, value: number): unknown;
  digitalRead(pin: number | string, handler: (value: number) => void): unknown;
  normalize?(pin: number | string): number | string;
  close?(): void;
}

export interface RelayDriverOptions {
  io: IOPlugin;
  relayPin: string;
  relayActiveLow: boolean;
  /** EPO signalling contact; omitted when the EPO monitor is off. */
  epoPin?: string | undefined;
  epoActiveLow?: boolean;
  /** The generator's running-feedback contact; omitted when the node has none. */
  feedbackPin?: string | undefined;
  feedbackActiveLow?: boolean;
  readyTimeoutMs?: number;
}

export class RelayDriver implements RelayOutput {
  private on = false;
  private epoLevel: number | null = null;
  private feedbackLevel: number | null = null;
  private closed = false;

  private constructor(
    private readonly io: IOPlugin,
    private readonly relay: five.Relay,
    private readonly opts: RelayDriverOptions,
  ) {}

  static async open(opts: RelayDriverOptions): Promise<RelayDriver> {
    const board = await boardReady(opts.io, opts.readyTimeoutMs ?? 10_000);
    const offLevel = opts.relayActiveLow ? 1 : 0;
    // OFF level into the output latch first, then output mode, so switching the mode cannot glitch ON.
    board.digitalWrite(opts.relayPin, offLevel);
    board.pinMode(opts.relayPin, five.Pin.OUTPUT);
    // johnny-five's "NC" relay closes the circuit by writing LOW: that is an active-low board.
    const relay = new five.Relay({ pin: opts.relayPin, type: opts.relayActiveLow ? 'NC' : 'NO', board });
    relay.open();
    const driver = new RelayDriver(opts.io, relay, opts);
    if (opts.epoPin) {
      board.pinMode(opts.epoPin, five.Pin.INPUT);
      // Contact to ground needs the pull-up (Firmata convention: HIGH written to an input).
      if (opts.epoActiveLow) board.digitalWrite(opts.epoPin, 1);
      board.digitalRead(opts.epoPin, (v: number) => {
        driver.epoLevel = v;
      });
    }
    if (opts.feedbackPin) {
      board.pinMode(opts.feedbackPin, five.Pin.INPUT);
      if (opts.feedbackActiveLow) board.digitalWrite(opts.feedbackPin, 1);
      board.digitalRead(opts.feedbackPin, (v: number) => {
        driver.feedbackLevel = v;
      });
    }
    return driver;
  }

  set(on: boolean): void {
    if (this.closed && on) throw new Error('relay driver is closed');
    if (on) this.relay.close();
    else this.relay.open();
    this.on = on;
  }

  get isOn(): boolean {
    return this.on;
  }

  /** True while the EPO contact is pressed; null before the input reported or without an EPO pin. */
  epoPressed(): boolean | null {
    if (this.epoLevel === null) return null;
    return this.opts.epoActiveLow ? this.epoLevel === 0 : this.epoLevel === 1;
  }

  /** True while the running-feedback contact says the generator runs; null before a read or without one. */
  feedbackActive(): boolean | null {
    if (this.feedbackLevel === null) return null;
    return this.opts.feedbackActiveLow ? this.feedbackLevel === 0 : this.feedbackLevel === 1;
  }

  /** Exit path: relay OFF (synchronous write), then release the IO plugin. Never throws. */
  close(): void {
    try {
      this.relay.open();
      this.on = false;
    } catch {
      // nothing more can be done on the way out
    }
    this.closed = true;
    try {
      this.io.close?.();
    } catch {
      // ignore
    }
  }
}

function boardReady(io: IOPlugin, timeoutMs: number): Promise<five.Board> {
  return new Promise((resolve, reject) => {
    // sigint:false: johnny-five's own SIGINT handler would exit without our relay-OFF path.
    const options = { io, repl: false, debug: false, sigint: false, timeout: timeoutMs } as five.BoardOption;
    const board = new five.Board(options);
    const timer = setTimeout(
      () => reject(new Error(`GPIO board not ready within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const events = board as unknown as EventEmitter;
    events.once('ready', () => {
      clearTimeout(timer);
      resolve(board);
    });
    events.once('error', (err: Error) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
