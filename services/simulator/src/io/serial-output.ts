import type { Clock, Logger } from '@outpost/runtime';
import { SerialPort } from 'serialport';
import { serialBanner } from './start-error.js';

export interface SerialOutputOptions {
  device: string;
  baudRate: number;
  clock: Clock;
  logger: Logger;
  /** How often to try again after the device went away (unplugged cable). */
  reopenMs?: number;
  /** Called when the device is lost or comes back, so the status banner can follow. */
  onStatus?: (error: string | null) => void;
}

/** More queued bytes than this means nothing reads the port: drop instead of growing memory. */
const MAX_QUEUED_BYTES = 16 * 1024;

function openPort(device: string, baudRate: number): Promise<SerialPort> {
  return new Promise((resolve, reject) => {
    const port = new SerialPort({ path: device, baudRate, autoOpen: false });
    port.open((err) => (err ? reject(serialBanner(device, err)) : resolve(port)));
  });
}

/**
 * NMEA out of a USB-serial adapter. Opening fails loudly (the start is refused with a banner); losing
 * the device later keeps the rest of the emulator running and retries until it is back.
 */
export class SerialOutput {
  private port: SerialPort | null;
  private reopenTimer: unknown = null;
  private closed = false;
  private lastError: string | null = null;
  private baudRate: number;
  bytesWritten = 0;
  writesDropped = 0;

  private constructor(
    private readonly opts: SerialOutputOptions,
    port: SerialPort,
  ) {
    this.port = port;
    this.baudRate = opts.baudRate;
    this.watch(port);
  }

  /** Opens the device; rejects with a StartError whose banner says why it cannot be used. */
  static async open(opts: SerialOutputOptions): Promise<SerialOutput> {
    const port = await openPort(opts.device, opts.baudRate);
    return new SerialOutput(opts, port);
  }

  get device(): string {
    return this.opts.device;
  }

  get error(): string | null {
    return this.lastError;
  }

  get isOpen(): boolean {
    return this.port?.isOpen ?? false;
  }

  get baud(): number {
    return this.baudRate;
  }

  /** Changes the line speed of the open port in place; a device that is away gets it when it is back. */
  async setBaudRate(baudRate: number): Promise<void> {
    this.baudRate = baudRate;
    const port = this.port;
    if (!port?.isOpen) return;
    await new Promise<void>((resolve, reject) =>
      port.update({ baudRate }, (err) => (err ? reject(serialBanner(this.opts.device, err)) : resolve())),
    );
  }

  write(text: string): boolean {
    const port = this.port;
    if (!port?.isOpen || port.writableLength > MAX_QUEUED_BYTES) {
      this.writesDropped++;
      return false;
    }
    port.write(text, 'ascii');
    this.bytesWritten += Buffer.byteLength(text, 'ascii');
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.opts.clock.clearTimeout(this.reopenTimer as never);
    const port = this.port;
    this.port = null;
    if (port?.isOpen) {
      await new Promise<void>((resolve) => port.close(() => resolve()));
    }
  }

  private watch(port: SerialPort): void {
    port.on('error', (err) => this.opts.logger.warn({ err, device: this.opts.device }, 'serial port error'));
    port.on('close', () => {
      if (this.closed || this.port !== port) return;
      this.port = null;
      this.setError(`USB serial device ${this.opts.device} was disconnected; retrying`);
      this.scheduleReopen();
    });
  }

  private scheduleReopen(): void {
    this.reopenTimer = this.opts.clock.setTimeout(() => {
      void this.reopen();
    }, this.opts.reopenMs ?? 5000);
  }

  private async reopen(): Promise<void> {
    if (this.closed) return;
    try {
      const port = await openPort(this.opts.device, this.baudRate);
      if (this.closed) {
        port.close();
        return;
      }
      this.port = port;
      this.watch(port);
      this.setError(null);
      this.opts.logger.info({ device: this.opts.device }, 'serial port reopened');
    } catch {
      this.scheduleReopen();
    }
  }

  private setError(error: string | null): void {
    if (error === this.lastError) return;
    this.lastError = error;
    if (error) this.opts.logger.warn({ device: this.opts.device }, error);
    this.opts.onStatus?.(error);
  }
}
