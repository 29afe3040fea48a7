import { readFile } from 'node:fs/promises';
import type { IOPlugin } from './relay-driver.js';
import { MockIO } from './mock-io.js';

export type GpioMode = 'auto' | 'mock' | 'raspi';

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
  kind: 'mock' | 'raspi';
  mock: MockIO | null;
}

export async function chooseIo(opts: { mockHat: boolean; gpioMode: GpioMode }): Promise<IoChoice> {
  const useRaspi =
    !opts.mockHat && (opts.gpioMode === 'raspi' || (opts.gpioMode === 'auto' && (await isRaspberryPi())));
  if (!useRaspi) {
    const mock = new MockIO();
    return { io: mock as unknown as IOPlugin, kind: 'mock', mock };
  }
  return { io: await loadRaspiIo(), kind: 'raspi', mock: null };
}

/** raspi-io is an arm-only optional dependency: loaded only here, only on a Pi. */
async function loadRaspiIo(): Promise<IOPlugin> {
  const name = 'raspi-io';
  let mod: { RaspiIO?: (opts?: object) => IOPlugin };
  try {
    mod = (await import(name)) as typeof mod;
  } catch (err) {
    throw new Error(
      `GPIO_MODE needs raspi-io, which is not installed (${(err as Error).message}); install it on the Pi or set MOCK_HAT_MODE=true`,
    );
  }
  if (typeof mod.RaspiIO !== 'function') throw new Error('raspi-io does not export RaspiIO');
  return mod.RaspiIO({ enableSerial: false, enableI2C: false });
}
