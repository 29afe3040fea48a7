import { createSocket, type Socket } from 'node:dgram';
import type { Logger } from '@outpost/runtime';

export interface UdpTarget {
  host: string;
  port: number;
}

export interface UdpSenderOptions {
  logger: Logger;
  /** Needed to send to a broadcast address (x.x.x.255 or 255.255.255.255). */
  broadcast?: boolean;
}

/**
 * One UDP socket that sends each line to any number of targets. Send failures (no route, a host
 * that answers with ICMP unreachable) are counted, never thrown: the next second tries again.
 */
export class UdpSender {
  private readonly socket: Socket;
  datagramsSent = 0;
  sendErrors = 0;
  private lastErrorLogged = 0;

  private constructor(
    socket: Socket,
    private readonly logger: Logger,
  ) {
    this.socket = socket;
    socket.on('error', (err) => this.fail(err));
  }

  static async create(opts: UdpSenderOptions): Promise<UdpSender> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    if (opts.broadcast) socket.setBroadcast(true);
    return new UdpSender(socket, opts.logger);
  }

  setBroadcast(on: boolean): void {
    this.socket.setBroadcast(on);
  }

  send(payload: string | Uint8Array, targets: readonly UdpTarget[]): void {
    const buf = typeof payload === 'string' ? Buffer.from(payload, 'ascii') : payload;
    for (const t of targets) {
      this.socket.send(buf, t.port, t.host, (err) => {
        if (err) this.fail(err);
        else this.datagramsSent++;
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      try {
        this.socket.close(() => resolve());
      } catch {
        resolve();
      }
    });
  }

  private fail(err: Error): void {
    this.sendErrors++;
    // One line per minute at most: a dead target would otherwise log every second.
    const now = Date.now();
    if (now - this.lastErrorLogged > 60_000) {
      this.lastErrorLogged = now;
      this.logger.warn({ err }, 'UDP send failed');
    }
  }
}
