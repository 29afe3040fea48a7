import { createServer, type Socket } from 'node:net';
import { type Clock, systemClock } from '@outpost/runtime/clock';
import { listenBanner } from './start-error.js';
import { guard, type Listener, type ListenerOptions, MAX_MESSAGE_BYTES } from './udp-listener.js';

export interface TcpListenerOptions extends ListenerOptions {
  /** A line longer than MAX_MESSAGE_BYTES: counted as bad, skipped up to the next newline. */
  onOversize?: (from: string) => void;
  maxConnections?: number;
  /** Connections one client address may hold at once; the next is closed at once. */
  maxPerIp?: number;
  /** A connection that sends nothing for this long is closed; 0 keeps it. */
  idleTimeoutMs?: number;
  clock?: Clock;
}

export const DEFAULT_TCP_MAX_PER_IP = 4;
export const DEFAULT_TCP_IDLE_TIMEOUT_MS = 120_000;

/**
 * Splits a byte stream into newline-terminated lines without letting one endless line grow the
 * buffer: past the limit the rest of that line is discarded.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) {
        this.append(chunk.subarray(start));
        return;
      }
      this.append(chunk.subarray(start, nl));
      if (!this.discarding) this.onLine(Buffer.concat(this.parts, this.size).toString('utf8'));
      this.parts = [];
      this.size = 0;
      this.discarding = false;
      start = nl + 1;
    }
  }

  private append(piece: Buffer): void {
    if (this.discarding || piece.length === 0) return;
    if (this.size + piece.length > this.maxBytes) {
      this.parts = [];
      this.size = 0;
      this.discarding = true;
      this.onOversize();
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
  }
}

/**
 * Receiver over TCP: newline-delimited messages, any number of senders up to maxConnections. One
 * address cannot take every slot (maxPerIp), and a connection that went quiet is closed
 * (idleTimeoutMs), so dead or hostile peers do not keep the receiver full.
 */
export async function listenTcp(opts: TcpListenerOptions): Promise<Listener> {
  const handle = guard(opts.logger, opts.onMessage);
  const clock = opts.clock ?? systemClock;
  const maxPerIp = opts.maxPerIp ?? DEFAULT_TCP_MAX_PER_IP;
  const idleMs = opts.idleTimeoutMs ?? DEFAULT_TCP_IDLE_TIMEOUT_MS;
  /** Each open connection and when it last sent something. */
  const sockets = new Map<Socket, number>();
  const perIp = new Map<string, number>();
  /** Addresses already logged as over the cap, so a flood of attempts is one line. */
  const capped = new Set<string>();
  const server = createServer((socket) => {
    const ip = socket.remoteAddress ?? 'unknown';
    const held = perIp.get(ip) ?? 0;
    if (held >= maxPerIp) {
      if (!capped.has(ip)) {
        capped.add(ip);
        opts.logger.warn({ ip, limit: maxPerIp }, 'receiver: too many TCP connections from one address');
      }
      socket.destroy();
      return;
    }
    perIp.set(ip, held + 1);
    const from = `${ip}:${socket.remotePort}`;
    sockets.set(socket, clock.now());
    const splitter = new LineSplitter(
      MAX_MESSAGE_BYTES,
      (line) => handle(line, from),
      () => opts.onOversize?.(from),
    );
    socket.on('data', (chunk) => {
      sockets.set(socket, clock.now());
      splitter.push(chunk);
    });
    socket.on('error', (err) => opts.logger.debug({ err, from }, 'receiver connection error'));
    socket.on('close', () => {
      sockets.delete(socket);
      const left = (perIp.get(ip) ?? 1) - 1;
      if (left > 0) perIp.set(ip, left);
      else perIp.delete(ip);
      capped.delete(ip);
    });
  });
  // One sweep for every connection: a timer per chunk would cost more than the lines themselves.
  const sweep =
    idleMs > 0
      ? clock.setInterval(
          () => {
            const cutoff = clock.now() - idleMs;
            for (const [socket, last] of sockets) {
              if (last > cutoff) continue;
              opts.logger.info(
                { from: `${socket.remoteAddress}:${socket.remotePort}`, idle_seconds: idleMs / 1000 },
                'receiver: idle TCP connection closed',
              );
              sockets.delete(socket);
              socket.destroy();
            }
          },
          Math.max(100, Math.min(idleMs / 4, 5000)),
        )
      : null;
  server.maxConnections = opts.maxConnections ?? 32;
  const stopSweep = () => {
    if (sweep !== null) clock.clearInterval(sweep);
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      stopSweep();
      reject(listenBanner('tcp', opts.port, err));
    });
    server.listen({ port: opts.port, host: opts.host ?? '0.0.0.0', exclusive: true }, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  server.on('error', (err) => opts.logger.warn({ err }, 'TCP listener error'));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    port,
    protocol: 'tcp',
    close: () =>
      new Promise<void>((resolve) => {
        stopSweep();
        for (const s of sockets.keys()) s.destroy();
        server.close(() => resolve());
      }),
  };
}
