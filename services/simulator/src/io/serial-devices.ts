import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { SerialPort } from 'serialport';

export interface SerialDevice {
  /** The path to open: the stable /dev/serial/by-id link when there is one. */
  device: string;
  /** The kernel node it points at (/dev/ttyUSB0). */
  path: string;
  name: string;
  manufacturer: string | null;
  serial_number: string | null;
  vendor_id: string | null;
  product_id: string | null;
}

export interface ListOptions {
  /** Root of the device tree; tests point it at a temporary directory. */
  devRoot?: string;
  /** The system enumerator (udevadm on Linux); absent or failing, the /dev scan still answers. */
  enumerate?: () => Promise<
    Array<{
      path: string;
      manufacturer?: string;
      serialNumber?: string;
      vendorId?: string;
      productId?: string;
    }>
  >;
}

const USB_NODE = /^tty(USB|ACM)\d+$/;

async function safeReaddir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function safeRealpath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

/**
 * USB-serial adapters visible to the service. udev gives the richest answer, but containers often
 * lack udevadm, so the by-id links and the ttyUSB/ttyACM nodes are read directly as well.
 */
export async function listSerialDevices(opts: ListOptions = {}): Promise<SerialDevice[]> {
  const devRoot = opts.devRoot ?? '/dev';
  const enumerate = opts.enumerate ?? (() => SerialPort.list());
  const byPath = new Map<string, SerialDevice>();

  const add = (path: string, device: string, extra: Partial<SerialDevice> = {}): void => {
    const known = byPath.get(path);
    const base: SerialDevice = known ?? {
      device,
      path,
      name: path.split('/').pop() ?? path,
      manufacturer: null,
      serial_number: null,
      vendor_id: null,
      product_id: null,
    };
    if (device !== path) base.device = device;
    for (const [k, v] of Object.entries(extra)) {
      if (v !== null && v !== undefined) (base as unknown as Record<string, unknown>)[k] = v;
    }
    byPath.set(path, base);
  };

  try {
    for (const p of await enumerate()) {
      const node = p.path.split('/').pop() ?? '';
      if (!USB_NODE.test(node) && !p.vendorId) continue;
      add(p.path, p.path, {
        manufacturer: p.manufacturer ?? null,
        serial_number: p.serialNumber ?? null,
        vendor_id: p.vendorId ?? null,
        product_id: p.productId ?? null,
      });
    }
  } catch {
    // no udevadm here: the directory scan below is the answer
  }

  for (const node of await safeReaddir(devRoot)) {
    if (USB_NODE.test(node)) add(join(devRoot, node), join(devRoot, node));
  }
  const byIdDir = join(devRoot, 'serial', 'by-id');
  for (const link of await safeReaddir(byIdDir)) {
    const linkPath = join(byIdDir, link);
    const target = await safeRealpath(linkPath);
    add(target, linkPath, { name: link });
  }

  return [...byPath.values()].sort((a, b) => a.device.localeCompare(b.device));
}
