import { readFile } from 'node:fs/promises';
import { GpioChipIO, type PinUse, type ToolRunner } from '@outpost/gpiochip';
import { MockIO } from './mock-io.js';
import type { IOPlugin } from './relay-driver.js';

export type GpioMode = 'auto' | 'mock' | 'gpiochip' | 'raspi';
export const GPIO_MODES = ['auto', 'mock', 'gpiochip', 'raspi'] as const;

/** ARCHITECTURE.md: `auto` means a Pi when /proc/device-tree/model says so. */
export async function isRaspberryPi(modelPath = '/proc/device-tree/model'): Promise<boolean> {
  try {
    return (await readFile(modelPath, 'utf8')).includes('Raspberry Pi');
  } catch {
    return false;
  }
}

export interface IoChoice {
  io: IOPlugin;
  kind: 'mock' | 'gpiochip' | 'raspi';
  mock: MockIO | null;
}

export interface IoRequest {
  mockHat: boolean;
  gpioMode: GpioMode;
  /** The lines this process will hold, checked against the chip before anything is requested. */
  pins?: PinUse[];
  /** Tests hand in a fake chip's tools; the real ones otherwise. */
  runner?: ToolRunner;
  devDir?: string;
}

/** The relay node's consumer name: gpioinfo shows which process holds a line, so the pid goes in. */
export const consumerName = (): string => `outpost-relaynode:${process.pid}`;

export async function chooseIo(opts: IoRequest): Promise<IoChoice> {
  const mode = opts.mockHat ? 'mock' : await resolveMode(opts.gpioMode);
  if (mode === 'mock') {
    const mock = new MockIO();
    return { io: mock as unknown as IOPlugin, kind: 'mock', mock };
  }
  if (mode === 'raspi') return { io: await loadRaspiIo(), kind: 'raspi', mock: null };
  const io = await GpioChipIO.open({
    consumer: consumerName(),
    validate: opts.pins ?? [],
    ...(opts.runner ? { runner: opts.runner } : {}),
    ...(opts.devDir ? { devDir: opts.devDir } : {}),
  });
  return { io: io as unknown as IOPlugin, kind: 'gpiochip', mock: null };
}

async function resolveMode(mode: GpioMode): Promise<'mock' | 'gpiochip' | 'raspi'> {
  if (mode !== 'auto') return mode;
  return (await isRaspberryPi()) ? 'gpiochip' : 'mock';
}

/** raspi-io is an arm-only optional dependency: loaded only here, only when asked for. */
async function loadRaspiIo(): Promise<IOPlugin> {
  const name = 'raspi-io';
  let mod: { RaspiIO?: (opts?: object) => IOPlugin };
  try {
    mod = (await import(name)) as typeof mod;
  } catch (err) {
    throw new Error(
      `GPIO_MODE=raspi needs raspi-io, which is not installed (${(err as Error).message}); use GPIO_MODE=gpiochip or install it on the Pi`,
    );
  }
  if (typeof mod.RaspiIO !== 'function') throw new Error('raspi-io does not export RaspiIO');
  return mod.RaspiIO({ enableSerial: false, enableI2C: false });
}
