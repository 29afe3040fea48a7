import { readFileSync } from 'node:fs';
import type { GpioInputPort, InputName } from './gpio-port.js';

/** GPIO_MODE=auto picks the Pi when the device tree says so. */
export function isRaspberryPi(): boolean {
  try {
    return /raspberry pi/i.test(readFileSync('/proc/device-tree/model', 'utf8'));
  } catch {
    return false;
  }
}

export interface RaspiPins {
  bms?: number;
  hoa_quiet?: number;
  hoa_run?: number;
  running_feedback?: number;
}

/**
 * Inputs through johnny-five on any IO plugin. The input signal is active HIGH; the HOA contacts and
 * the running feedback (an AC-sense relay, the generator's run output or an oil-pressure switch) are
 * normally open to ground with the pull-up on, so a closed contact reads LOW. Pins are bound once
 * here; changing them needs a restart.
 */
export async function createFiveGpio(
  io: unknown,
  pins: RaspiPins,
  pinName: (gpio: number) => string | number,
  mode: GpioInputPort['mode'] = 'raspi',
): Promise<GpioInputPort> {
  const five = (await import('johnny-five')).default;
  const board = new five.Board({ io, repl: false, debug: false } as never);
  await new Promise<void>((resolve, reject) => {
    board.on('ready', () => resolve());
    board.on('error', (err: Error) => reject(err));
  });
  const values: Record<InputName, boolean> = {
    bms: false,
    hoa_quiet: false,
    hoa_run: false,
    running_feedback: false,
  };
  const listeners: ((input: InputName, value: boolean) => void)[] = [];
  const set = (input: InputName, value: boolean) => {
    if (values[input] === value) return;
    values[input] = value;
    for (const fn of listeners) fn(input, value);
  };
  const watch = (input: InputName, pin: number | undefined, pullup: boolean) => {
    if (pin === undefined) return;
    // With the pull-up on, johnny-five inverts: LOW (contact closed) is "press".
    const button = new five.Button({ pin: pinName(pin), isPullup: pullup, board } as never);
    button.on('press', () => set(input, true));
    button.on('release', () => set(input, false));
  };
  watch('bms', pins.bms, false);
  watch('hoa_quiet', pins.hoa_quiet, true);
  watch('hoa_run', pins.hoa_run, true);
  watch('running_feedback', pins.running_feedback, true);
  return {
    mode,
    read: (input) => values[input],
    onChange: (fn) => {
      listeners.push(fn);
    },
    close: async () => {
      (io as { reset?: () => void }).reset?.();
      (io as { close?: () => void }).close?.();
    },
  };
}

/** johnny-five with the raspi-io plugin (installed on the Pi). */
export async function createRaspiGpio(pins: RaspiPins): Promise<GpioInputPort> {
  let RaspiIO: new () => unknown;
  try {
    const moduleName = 'raspi-io';
    ({ RaspiIO } = (await import(moduleName)) as { RaspiIO: new () => unknown });
  } catch {
    throw new Error('GPIO_MODE=raspi needs the raspi-io package (npm install raspi-io on the Pi)');
  }
  return createFiveGpio(new RaspiIO(), pins, (n) => `GPIO${n}`);
}
