import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSerialDevices } from '../../src/io/serial-devices.js';
import { tempDir } from '../helpers/peers.js';

describe('USB-serial device listing', () => {
  const dirs: Array<{ remove(): void }> = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) d.remove();
  });

  function fakeDev() {
    const d = tempDir('sim-dev-');
    dirs.push(d);
    for (const n of ['ttyUSB0', 'ttyACM3', 'ttyS0', 'tty1', 'null']) writeFileSync(join(d.path, n), '');
    mkdirSync(join(d.path, 'serial', 'by-id'), { recursive: true });
    symlinkSync('../../ttyUSB0', join(d.path, 'serial', 'by-id', 'usb-FTDI_FT232R_A123-if00-port0'));
    return d.path;
  }

  it('still answers from /dev when udevadm is missing', async () => {
    const dev = fakeDev();
    const list = await listSerialDevices({
      devRoot: dev,
      enumerate: () => Promise.reject(Object.assign(new Error('spawn udevadm ENOENT'), { code: 'ENOENT' })),
    });
    expect(list.map((d) => d.device)).toEqual([
      join(dev, 'serial', 'by-id', 'usb-FTDI_FT232R_A123-if00-port0'),
      join(dev, 'ttyACM3'),
    ]);
    expect(list[0]).toMatchObject({ path: join(dev, 'ttyUSB0'), name: 'usb-FTDI_FT232R_A123-if00-port0' });
  });

  it('merges what udev knows (vendor, serial) and leaves out non-USB ports', async () => {
    const dev = fakeDev();
    const list = await listSerialDevices({
      devRoot: dev,
      enumerate: async () => [
        {
          path: join(dev, 'ttyUSB0'),
          manufacturer: 'FTDI',
          serialNumber: 'A123',
          vendorId: '0403',
          productId: '6001',
        },
        { path: join(dev, 'ttyS0') },
      ],
    });
    expect(list).toHaveLength(2);
    expect(list.find((d) => d.path === join(dev, 'ttyUSB0'))).toMatchObject({
      manufacturer: 'FTDI',
      serial_number: 'A123',
      vendor_id: '0403',
      product_id: '6001',
    });
    expect(list.some((d) => d.path.endsWith('ttyS0'))).toBe(false);
  });

  it('an empty machine lists nothing', async () => {
    const d = tempDir('sim-dev-');
    dirs.push(d);
    expect(await listSerialDevices({ devRoot: d.path, enumerate: async () => [] })).toEqual([]);
  });
});
