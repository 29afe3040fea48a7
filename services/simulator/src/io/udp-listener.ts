import { createSocket, type Socket } from 'node:dgram';
import type { Logger } from '@outpost/runtime';
import { listenBanner } from './start-error.js';

export interface ListenerOptions {
  port: number;
  host?: string;
  logger: Logger;
  /** One message per call; the handler must not throw (it is guarded anyway). */
  onMessage: (text: string, from: string) => void;
}

export interface Listener {
  readonly port: number;
  readonly protocol: 'udp' | 'tcp';
  close(): Promise<void>;
}

/** Datagrams larger than this are not position messages; they are dropped before decoding. */
export const MAX_MESSAGE_BYTES = 4096;

export function guard(logger: Logger, fn: (text: string, from: string) => void) {
  return (text: string, from: string) => {
    try {
      fn(text, from);
    } catch (err) {
      logger.error({ err }, 'receiver handler failed');
    }
  };
}

/** Receiver over UDP: each datagram is one message. */
export async function listenUdp(
  opts: ListenerOptions & { onOversize?: (from: string) => void },
): Promise<Listener> {
  const socket: Socket = createSocket({ type: 'udp4', reuseAddr: false });
  const handle = guard(opts.logger, opts.onMessage);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', (err) => reject(listenBanner('udp', opts.port, err)));
    socket.bind(opts.port, opts.host ?? '0.0.0.0', () => {
      socket.removeAllListeners('error');
      resolve();
    });
  });
  socket.on('error', (err) => opts.logger.warn({ err }, 'UDP listener error'));
  socket.on('message', (msg, rinfo) => {
    const from = `${rinfo.address}:${rinfo.port}`;
    if (msg.length > MAX_MESSAGE_BYTES) {
      opts.onOversize?.(from);
      return;
    }
    handle(msg.toString('utf8'), from);
  });
  const port = socket.address().port;
  return {
    port,
    protocol: 'udp',
    close: () =>
      new Promise<void>((resolve) => {
        try {
          socket.close(() => resolve());
        } catch {
          resolve();
        }
      }),
  };
}
