import type { Socket } from 'node:net';

/** A batch this large is handed to the kernel at once rather than at the end of the turn. */
export const FLUSH_BYTES = 64 * 1024;

/**
 * Gathers what the broker writes to one connection during an event-loop turn into one writev.
 *
 * aedes writes each packet on its own (mqtt-packet corks only the pieces of one packet), so a burst to
 * one subscriber, such as the dashboard receiving every simulator's telemetry, costs one system call per
 * message. Here the first write of a turn corks the socket and a setImmediate uncorks it. A batch that
 * reaches `flushBytes` goes out at once, so the reader starts on it while the broker keeps producing.
 * destroy() flushes first: what aedes wrote just before dropping a connection (a refusing CONNACK, the
 * messages before a refused publish) still leaves, as it did when every packet was flushed on its own.
 */
export function coalesceWrites(socket: Socket, flushBytes = FLUSH_BYTES): void {
  const write = socket.write;
  const destroy = socket.destroy;
  let held = false;
  let scheduled = false;
  let bytes = 0;

  const release = () => {
    bytes = 0;
    if (held) {
      held = false;
      socket.uncork();
    }
  };
  const endOfTurn = () => {
    scheduled = false;
    release();
  };

  socket.write = function coalescedWrite(this: Socket, chunk: unknown, ...rest: unknown[]): boolean {
    if (!held && !socket.destroyed) {
      held = true;
      socket.cork();
      if (!scheduled) {
        scheduled = true;
        setImmediate(endOfTurn);
      }
    }
    bytes += (chunk as { length?: number }).length ?? 0;
    const ok = (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    if (bytes >= flushBytes) release();
    return ok;
  } as Socket['write'];

  socket.destroy = function flushThenDestroy(this: Socket, err?: Error): Socket {
    release();
    return destroy.call(this, err);
  };
}
