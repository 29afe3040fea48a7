import { connect, type Socket } from 'node:net';
import type { Clock, Logger } from '@outpost/runtime';
import { connectBanner } from './start-error.js';

export interface TcpSenderOptions {
  host: string;
  port: number;
  clock: Clock;
  logger: Logger;
  connectTimeoutMs?: number;
  reconnectMs?: number;
  onStatus?: (error: string | null) => void;
}

const MAX_QUEUED_BYTES = 64 * 1024;

function dial(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
  });
}

/**
 * Sender over TCP. The first connection must succeed (a refused connection is a start error the user
 * sees); a connection lost later is redialled in the background while lines are dropped, so a
 * restarted receiver picks the stream up again without a restart here.
 */
export class TcpSender {
  private socket: Socket | null;
  private closed = false;
  private timer: unknown = null;
  private lastError: string | null = null;
  linesSent = 0;
  linesDropped = 0;

  private constructor(
    private readonly opts: TcpSenderOptions,
    socket: Socket,
  ) {
    this.socket = socket;
    this.watch(socket);
  }

  static async connect(opts: TcpSenderOptions): Promise<TcpSender> {
    try {
      const socket = await dial(opts.host, opts.port, opts.connectTimeoutMs ?? 5000);
      return new TcpSender(opts, socket);
    } catch (err) {
      throw connectBanner(opts.host, opts.port, err);
    }
  }

  get error(): string | null {
    return this.lastError;
  }

  send(text: string): boolean {
    const s = this.socket;
    if (!s || s.destroyed || s.writableLength > MAX_QUEUED_BYTES) {
      this.linesDropped++;
      return false;
    }
    s.write(text);
    this.linesSent++;
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.opts.clock.clearTimeout(this.timer as never);
    const s = this.socket;
    this.socket = null;
    if (s && !s.destroyed) await new Promise<void>((resolve) => s.end(() => resolve()));
    s?.destroy();
  }

  private watch(socket: Socket): void {
    socket.setNoDelay(true);
    socket.on('error', (err) => this.opts.logger.debug({ err }, 'TCP sender socket error'));
    // The receiver never talks back; reading keeps the socket from stalling on half-closed peers.
    socket.on('data', () => {});
    socket.on('close', () => {
      if (this.closed || this.socket !== socket) return;
      this.socket = null;
      this.setError(`Connection to ${this.opts.host}:${this.opts.port} lost; reconnecting`);
      this.schedule();
    });
  }

  private schedule(): void {
    this.timer = this.opts.clock.setTimeout(() => void this.redial(), this.opts.reconnectMs ?? 2000);
  }

  private async redial(): Promise<void> {
    if (this.closed) return;
    try {
      const socket = await dial(this.opts.host, this.opts.port, this.opts.connectTimeoutMs ?? 5000);
      if (this.closed) {
        socket.destroy();
        return;
      }
      this.socket = socket;
      this.watch(socket);
      this.setError(null);
    } catch {
      this.schedule();
    }
  }

  private setError(error: string | null): void {
    if (error === this.lastError) return;
    this.lastError = error;
    if (error) this.opts.logger.warn(error);
    this.opts.onStatus?.(error);
  }
}
