import { createRequire } from 'node:module';
import type dbus from 'dbus-next';

// dbus-next adds ~10 MB to a process once loaded; a relay node that is never asked about WiFi or
// power (every mock-GPIO host, and a Pi between admin visits) never loads it.
const load = createRequire(import.meta.url);
let lib: typeof dbus | undefined;
const dbusLib = (): typeof dbus => {
  lib ??= load('dbus-next') as typeof dbus;
  return lib;
};

export class BusUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BusUnavailable';
  }
}

/**
 * Plain method calls on the system bus, without introspection: NetworkManager and logind interfaces
 * are stable, and skipping introspection keeps a call to one round trip. Every call is bounded: a
 * missing bus socket fails the call instead of hanging the request.
 */
export class SystemBus {
  private bus: dbus.MessageBus | null = null;
  private readonly pending = new Set<(err: Error) => void>();

  /** address: a bus other than the system one (tests run a private bus); default the system bus. */
  constructor(
    private readonly address?: string,
    private readonly timeoutMs = 10_000,
  ) {}

  private get conn(): dbus.MessageBus {
    if (!this.bus) {
      const bus = this.address ? dbusLib().sessionBus({ busAddress: this.address }) : dbusLib().systemBus();
      // A bus that fails or goes away must not crash the node; pending calls fail, the next reconnects.
      bus.on('error', (err: Error) => {
        if (this.bus === bus) this.bus = null;
        for (const reject of this.pending)
          reject(new BusUnavailable(`system bus unavailable: ${err.message}`));
      });
      this.bus = bus;
    }
    return this.bus;
  }

  async call(
    destination: string,
    path: string,
    iface: string,
    member: string,
    signature = '',
    body: unknown[] = [],
  ): Promise<unknown[]> {
    const msg = new (dbusLib().Message)({ destination, path, interface: iface, member, signature, body });
    let reject: (err: Error) => void = () => {};
    let timer: NodeJS.Timeout | undefined;
    const failure = new Promise<never>((_, rej) => {
      reject = rej;
      timer = setTimeout(
        () => rej(new BusUnavailable(`no answer from ${destination} within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    this.pending.add(reject);
    try {
      const reply = await Promise.race([this.conn.call(msg), failure]);
      return reply?.body ?? [];
    } finally {
      clearTimeout(timer);
      this.pending.delete(reject);
    }
  }

  async getProp(destination: string, path: string, iface: string, name: string): Promise<unknown> {
    const [v] = await this.call(destination, path, 'org.freedesktop.DBus.Properties', 'Get', 'ss', [
      iface,
      name,
    ]);
    return (v as dbus.Variant).value;
  }

  async getAll(destination: string, path: string, iface: string): Promise<Record<string, unknown>> {
    const [all] = await this.call(destination, path, 'org.freedesktop.DBus.Properties', 'GetAll', 's', [
      iface,
    ]);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(all as Record<string, dbus.Variant>)) out[k] = v.value;
    return out;
  }

  close(): void {
    try {
      this.bus?.disconnect();
    } catch {
      // already gone
    }
    this.bus = null;
  }
}

export const variant = (signature: string, value: unknown) => new (dbusLib().Variant)(signature, value);
