import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { hoaFromContacts } from '../../src/inputs/gpio-port.js';
import { createFiveGpio } from '../../src/inputs/raspi-gpio.js';

/** A minimal johnny-five IO plugin standing in for the Pi's GPIO header (hardware is the one fake). */
class FakeIo extends EventEmitter {
  readonly name = 'FakeIo';
  readonly isReady = true;
  readonly MODES = { INPUT: 0, OUTPUT: 1, ANALOG: 2, PWM: 3, SERVO: 4 };
  readonly HIGH = 1;
  readonly LOW = 0;
  readonly pins = Array.from({ length: 32 }, () => ({
    supportedModes: [0, 1],
    mode: 0,
    value: 0,
    report: 1,
    analogChannel: 127,
  }));
  readonly analogPins: number[] = [];
  readonly levels = new Map<number, number>();
  private readonly readers = new Map<number, (v: number) => void>();
  pinMode() {}
  digitalWrite(pin: number, value: number) {
    // Enabling the pull-up makes an open contact read HIGH.
    if (!this.levels.has(pin)) this.levels.set(pin, value);
  }
  digitalRead(pin: number, cb: (v: number) => void) {
    this.readers.set(pin, cb);
    cb(this.levels.get(pin) ?? 0);
  }
  /** Drives a pin level, as the wiring would, and lets johnny-five's 7 ms button debounce pass. */
  async drive(pin: number, value: 0 | 1) {
    this.levels.set(pin, value);
    this.readers.get(pin)?.(value);
    await new Promise((r) => setTimeout(r, 30));
  }
  reset() {}
}

describe('johnny-five inputs', () => {
  it('maps the input signal (active HIGH) and the HOA contacts (closed to ground) through Buttons', async () => {
    const io = new FakeIo();
    const gpio = await createFiveGpio(io, { bms: 17, hoa_quiet: 22, hoa_run: 27 }, (n) => n, 'mock');
    const changes: string[] = [];
    gpio.onChange((input, value) => changes.push(`${input}=${value}`));
    await io.drive(17, 1);
    expect(gpio.read('bms')).toBe(true);
    await io.drive(17, 0);
    expect(gpio.read('bms')).toBe(false);
    await io.drive(22, 0); // Quiet contact closes
    expect(hoaFromContacts(gpio.read('hoa_quiet'), gpio.read('hoa_run'))).toBe('quiet');
    await io.drive(27, 0); // both closed: Fault
    expect(hoaFromContacts(gpio.read('hoa_quiet'), gpio.read('hoa_run'))).toBe('fault');
    await io.drive(22, 1);
    expect(hoaFromContacts(gpio.read('hoa_quiet'), gpio.read('hoa_run'))).toBe('run');
    expect(changes).toEqual(['bms=true', 'bms=false', 'hoa_quiet=true', 'hoa_run=true', 'hoa_quiet=false']);
    await gpio.close();
  });
});
