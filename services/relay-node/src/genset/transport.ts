import { createRequire } from 'node:module';
import type { genset } from '@outpost/contracts';
import type ModbusClientDefault from 'modbus-serial';
import type { GensetSettings } from './settings.js';

// A CommonJS package whose module.exports is the client class; its typings describe an ES default.
type ModbusClient = InstanceType<typeof ModbusClientDefault.default>;
type ModbusClass = typeof ModbusClientDefault.default;
let modbusClass: ModbusClass | undefined;
/**
 * Loaded on the first connection, not at start: a relay node without a genset link (GENSET_TRANSPORT
 * unset) never needs it, and with serialport under it it is about 3 MB of idle RSS on a 512 MB Pi.
 */
const ModbusRTU = (): ModbusClass =>
  (modbusClass ??= createRequire(import.meta.url)('modbus-serial') as ModbusClass);

/**
 * Modbus to the generator's module through `modbus-serial` (framing, CRC and transaction ids are the
 * library's): Modbus TCP to the module or a gateway such as the DSE 855, or Modbus RTU on a USB
 * RS-485 adapter. Every failure becomes a GensetReadError with the fault the message reports.
 */

/** Modbus exception 2, "illegal data address": the module has no such register. */
export const ILLEGAL_DATA_ADDRESS = 2;

export class GensetReadError extends Error {
  constructor(
    readonly fault: genset.GensetFault,
    message: string,
    /** The Modbus exception code, for `exception`. */
    readonly modbusCode?: number,
  ) {
    super(message);
    this.name = 'GensetReadError';
  }
}

export interface RegisterIo {
  readHolding(start: number, count: number): Promise<number[]>;
  /** Function 16: several registers in one request. */
  writeHolding(start: number, values: readonly number[]): Promise<void>;
  close(): Promise<void>;
}

/** What `modbus-serial` threw → the fault users see. */
export function classify(err: unknown): GensetReadError {
  if (err instanceof GensetReadError) return err;
  const e = err as { name?: string; message?: string; modbusCode?: number; errno?: string; code?: string };
  const message = String(e?.message ?? err);
  if (typeof e?.modbusCode === 'number') return new GensetReadError('exception', message, e.modbusCode);
  if (e?.name === 'TransactionTimedOutError' || e?.errno === 'ETIMEDOUT') {
    return new GensetReadError('timeout', message);
  }
  if (/CRC error/i.test(message)) return new GensetReadError('crc', message);
  if (/expected address/i.test(message)) return new GensetReadError('wrong_unit', message);
  if (/Data length error|Unexpected data error|expected code/i.test(message)) {
    return new GensetReadError('bad_data', message);
  }
  return new GensetReadError('connection', message);
}

type Client = ModbusClient;

/** One client, connected on first use and again after a connection fault. */
export class ModbusSerialIo implements RegisterIo {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;

  constructor(private readonly settings: GensetSettings) {}

  async readHolding(start: number, count: number): Promise<number[]> {
    const client = await this.connected();
    try {
      const res = await client.readHoldingRegisters(start, count);
      if (res.data.length !== count) {
        throw new GensetReadError('bad_data', `asked ${count} registers at ${start}, got ${res.data.length}`);
      }
      return res.data;
    } catch (err) {
      throw await this.failed(err);
    }
  }

  async writeHolding(start: number, values: readonly number[]): Promise<void> {
    const client = await this.connected();
    try {
      await client.writeRegisters(start, [...values]);
    } catch (err) {
      throw await this.failed(err);
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (!client) return;
    await new Promise<void>((resolve) => {
      try {
        client.close(() => resolve());
      } catch {
        resolve();
      }
      setTimeout(resolve, 500).unref();
    });
  }

  /**
   * A timeout or garbage on a serial line or a stream can leave half a frame in flight: a new
   * connection starts clean. An exception answer is a whole frame and keeps the connection.
   */
  private async failed(err: unknown): Promise<GensetReadError> {
    const e = classify(err);
    if (e.fault !== 'exception') await this.close();
    return e;
  }

  private async connected(): Promise<Client> {
    if (this.client?.isOpen) return this.client;
    if (this.client) await this.close();
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const s = this.settings;
    const Modbus = ModbusRTU();
    const client = new Modbus();
    // Without a listener a dropped socket or unplugged adapter would be an uncaught 'error' event.
    client.on('error', () => undefined);
    try {
      if (s.transport === 'dev') {
        throw new Error('GENSET_TRANSPORT=dev has no Modbus link');
      } else if (s.transport === 'tcp') {
        await client.connectTCP(s.host, { port: s.port, timeout: s.timeoutMs });
      } else {
        await client.connectRTUBuffered(s.device, {
          baudRate: s.baudRate,
          parity: s.parity,
          dataBits: 8,
          stopBits: s.stopBits,
        });
      }
    } catch (err) {
      try {
        client.close(() => undefined);
      } catch {
        // never opened
      }
      throw new GensetReadError('connection', String((err as Error)?.message ?? err));
    }
    client.setID(s.unitId);
    client.setTimeout(s.timeoutMs);
    this.client = client;
    return client;
  }
}
