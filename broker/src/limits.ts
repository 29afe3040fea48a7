import type { Duplex } from 'node:stream';

/** What one client may cost the broker before it is dropped. */
export interface ConnectionLimits {
  /** Largest MQTT packet (fixed header included) a client may send. */
  maxPacketBytes: number;
  /** Open connections from one address, all listeners together. */
  maxConnectionsPerIp: number;
}

export const DEFAULT_LIMITS: ConnectionLimits = {
  // The dashboard's retained fleet snapshot is about 1.7 MB at 5,000 simulators.
  maxPacketBytes: 4 * 1024 * 1024,
  maxConnectionsPerIp: 64,
};

/**
 * Drops a connection as soon as a packet header announces more than `maxBytes`, before the payload is
 * buffered: aedes' parser would otherwise collect up to 256 MB for one packet. It reads the fixed headers
 * from the bytes aedes itself reads ('data' fires for every read while aedes drives the stream with
 * 'readable'), so nothing is copied or delayed.
 */
export function guardPacketSize(stream: Duplex, maxBytes: number, onTooLarge: (bytes: number) => void): void {
  // Where we are in the current packet: its header (type byte + up to 4 length bytes) or its body.
  let inHeader = true;
  let headerBytes = 0;
  let length = 0;
  let multiplier = 1;
  let remaining = 0;
  let stopped = false;

  stream.on('data', (chunk: Buffer) => {
    let i = 0;
    while (i < chunk.length && !stopped) {
      if (!inHeader) {
        const take = Math.min(remaining, chunk.length - i);
        remaining -= take;
        i += take;
        if (remaining === 0) inHeader = true;
        continue;
      }
      const byte = chunk[i++]!;
      headerBytes++;
      if (headerBytes === 1) continue; // packet type and flags
      length += (byte & 0x7f) * multiplier;
      multiplier *= 128;
      // A malformed length (a fifth length byte) is left to aedes' parser, which refuses it.
      if (byte & 0x80 && headerBytes < 5) continue;
      const total = length + headerBytes;
      if (total > maxBytes) {
        stopped = true;
        onTooLarge(total);
        stream.destroy();
        return;
      }
      remaining = length;
      inHeader = remaining === 0;
      headerBytes = 0;
      length = 0;
      multiplier = 1;
    }
  });
}

/** Counts open connections per address; refuses one over the cap. */
export class ConnectionsPerIp {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** True when `stream` from `ip` may stay; it is then counted until it closes. */
  admit(ip: string, stream: Duplex): boolean {
    const n = this.open.get(ip) ?? 0;
    if (n >= this.max) return false;
    this.open.set(ip, n + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.open.get(ip) ?? 1) - 1;
      if (left <= 0) this.open.delete(ip);
      else this.open.set(ip, left);
    };
    stream.once('close', release);
    return true;
  }

  count(ip: string): number {
    return this.open.get(ip) ?? 0;
  }
}
