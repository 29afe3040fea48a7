import { EventEmitter } from 'node:events';
import { gpioNumber } from './pins.js';

/**
 * An in-memory johnny-five IO plugin (io-plugins spec: MODES, pins, analogPins, isReady, "connect" and
 * "ready" emitted asynchronously, pinMode/digitalWrite/digitalRead, normalize). Used in MOCK_HAT_MODE,
 * on machines that are not a Pi, and in tests, so the same johnny-five code drives it.
 */

const MODES = Object.freeze({ INPUT: 0, OUTPUT: 1, ANALOG: 2, PWM: 3, SERVO: 4 });
const PIN_COUNT = 54;
/** io-plugins spec: digitalRead handlers should be called at least every 19 ms. */
const REPORT_MS = 10;

interface PinState {
  supportedModes: number[];
  mode: number;
  /** Firmata convention: a HIGH write to an INPUT pin turns its pull-up on. */
  pullUp: boolean;
  /** Output latch: what the pin drives once it becomes an output (as on the BCM GPIO block). */
  latch: number;
  value: number;
  report: number;
  analogChannel: number;
}

export interface PinWrite {
  pin: number;
  value: number;
  atMs: number;
}

export class MockIO extends EventEmitter {
  readonly name = 'MockHAT';
  readonly MODES = MODES;
  readonly HIGH = 1;
  readonly LOW = 0;
  readonly defaultLed = -1;
  readonly analogPins: number[] = [];
  readonly pins: PinState[];
  isReady = false;
  /** Every level an output pin drove, in order: what a logic analyser on the header would see. */
  readonly writes: PinWrite[] = [];
  private readonly reporters = new Map<number, NodeJS.Timeout>();

  constructor() {
    super();
    this.pins = Array.from({ length: PIN_COUNT }, () => ({
      supportedModes: [MODES.INPUT, MODES.OUTPUT],
      mode: MODES.INPUT,
      pullUp: false,
      latch: 0,
      value: 0,
      report: 0,
      analogChannel: 127,
    }));
    setImmediate(() => {
      this.emit('connect');
      this.isReady = true;
      this.emit('ready');
    });
  }

  normalize(pin: number | string): number {
    if (typeof pin === 'number') return pin;
    return /^\d+$/.test(pin) ? Number(pin) : gpioNumber(pin);
  }

  pinMode(pin: number | string, mode: number): this {
    const n = this.normalize(pin);
    const p = this.pinAt(n);
    const wasOutput = p.mode === MODES.OUTPUT;
    p.mode = mode;
    if (mode === MODES.OUTPUT && !wasOutput) this.drive(n, p, p.latch);
    return this;
  }

  digitalWrite(pin: number | string, value: number): this {
    const n = this.normalize(pin);
    const p = this.pinAt(n);
    p.latch = value ? 1 : 0;
    if (p.mode === MODES.INPUT) {
      p.pullUp = Boolean(value);
      return this;
    }
    this.drive(n, p, p.latch);
    return this;
  }

  private drive(n: number, p: PinState, value: number): void {
    p.value = value;
    this.writes.push({ pin: n, value, atMs: Date.now() });
    this.emit('write', n, value);
  }

  digitalRead(pin: number | string, handler: (value: number) => void): this {
    const n = this.normalize(pin);
    const p = this.pinAt(n);
    p.mode = MODES.INPUT;
    p.report = 1;
    const event = `digital-read-${n}`;
    this.on(event, handler);
    if (!this.reporters.has(n)) {
      const t = setInterval(() => this.emit(event, this.pinAt(n).value), REPORT_MS);
      t.unref();
      this.reporters.set(n, t);
      setImmediate(() => this.emit(event, p.value));
    }
    return this;
  }

  /** Test and dev hook: what the outside world applies to an input pin. */
  setInput(pin: number | string, value: number): void {
    this.pinAt(pin).value = value ? 1 : 0;
  }

  /** Current mode of a pin (MODES). */
  modeOf(pin: number | string): number {
    return this.pinAt(pin).mode;
  }

  /** Current level of a pin (1 high, 0 low). */
  level(pin: number | string): number {
    return this.pinAt(pin).value;
  }

  analogRead(): never {
    throw new Error('MockIO: analogRead is not supported');
  }

  close(): void {
    for (const t of this.reporters.values()) clearInterval(t);
    this.reporters.clear();
  }

  private pinAt(pin: number | string): PinState {
    const n = this.normalize(pin);
    const p = this.pins[n];
    if (!p) throw new Error(`MockIO: no pin ${pin}`);
    return p;
  }
}
