import { createServer, type Socket } from 'node:net';
import { listenBanner } from './start-error.js';
import { guard, type Listener, type ListenerOptions, MAX_MESSAGE_BYTES } from './udp-listener.js';

export interface TcpListenerOptions extends ListenerOptions {
  /** A line longer than MAX_MESSAGE_BYTES: counted as bad, skipped up to the next newline. */
  onOversize?: (from: string) => void;
  maxConnections?: number;
}

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

/** Receiver over TCP: newline-delimited messages, any number of senders up to maxConnections. */
export async function listenTcp(opts: TcpListenerOptions): Promise<Listener> {
  const handle = guard(opts.logger, opts.onMessage);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const from = `${socket.remoteAddress}:${socket.remotePort}`;
    sockets.add(socket);
    const splitter = new LineSplitter(
      MAX_MESSAGE_BYTES,
      (line) => handle(line, from),
      () => opts.onOversize?.(from),
    );
    socket.on('data', (chunk) => splitter.push(chunk));
    socket.on('error', (err) => opts.logger.debug({ err, from }, 'receiver connection error'));
    socket.on('close', () => sockets.delete(socket));
  });
  server.maxConnections = opts.maxConnections ?? 32;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenBanner('tcp', opts.port, err)));
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
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
