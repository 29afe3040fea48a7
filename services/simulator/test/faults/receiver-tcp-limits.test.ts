import { createConnection, type Socket } from 'node:net';
import type { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { freeTcpPort } from '../helpers/net.js';
import { waitForAsync } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

/**
 * The TCP receiver is a port anyone on the LAN can open. One address may hold only
 * RECEIVER_TCP_MAX_CONNECTIONS_PER_IP connections (the next is closed at once, other addresses are
 * still served), and a connection silent for RECEIVER_TCP_IDLE_TIMEOUT_SECONDS is closed, measured on
 * the simulator's injected clock.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const line = (lat: number) =>
  `${JSON.stringify({ lat, lon: -122.3088, alt_ft: 4500, speed_kts: 180, heading: 270 })}\n`;

interface Client {
  socket: Socket;
  closed: Promise<void>;
  isClosed: () => boolean;
}

/** A TCP client from `from` (any 127/8 address is this machine's loopback). */
async function connect(port: number, from = '127.0.0.1'): Promise<Client> {
  const socket = createConnection({ host: '127.0.0.1', port, localAddress: from });
  let closed = false;
  const done = new Promise<void>((r) =>
    socket.once('close', () => {
      closed = true;
      r();
    }),
  );
  socket.on('error', () => {});
  await new Promise<void>((resolve) => {
    socket.once('connect', () => resolve());
    socket.once('close', () => resolve());
  });
  cleanups.push(() => {
    socket.destroy();
  });
  return { socket, closed: done, isClosed: () => closed };
}

async function start(env: Record<string, string>): Promise<{ s: TestSim; port: number }> {
  const s = await startTestSim(env);
  cleanups.push(() => s.close());
  const port = await freeTcpPort();
  await s.api.ok('/api/config/modes', { receiver: true });
  await s.api.ok('/api/config/network', { protocol: 'tcp', listen_port: port });
  await s.api.ok('/api/control', { action: 'start' });
  return { s, port };
}

const accepted = async (s: TestSim) =>
  ((await s.api.get<{ receiver: { messages_accepted: number } }>('/api/status')).body.receiver
    .messages_accepted as number) ?? 0;
const untilAccepted = (s: TestSim, n: number) => waitForAsync(async () => (await accepted(s)) >= n, 5000);

describe('TCP receiver limits (fault)', () => {
  it('the connection over the per-address cap is closed unread; other addresses and freed slots are served', async () => {
    const { s, port } = await start({ RECEIVER_TCP_MAX_CONNECTIONS_PER_IP: '2' });
    const a = await connect(port);
    const b = await connect(port);
    a.socket.write(line(10));
    b.socket.write(line(11));
    await untilAccepted(s, 2);

    const third = await connect(port);
    await third.closed;
    // Another address is not held back by the first one's connections.
    const other = await connect(port, '127.0.0.2');
    other.socket.write(line(13));
    await untilAccepted(s, 3);
    expect((await s.api.get<{ lat: number }>('/api/status')).body.lat).toBe(13);
    expect(await accepted(s)).toBe(3);
    expect(a.isClosed() || b.isClosed()).toBe(false);

    // A slot freed by the first address is its own again.
    a.socket.destroy();
    await a.closed;
    // The server sees that close a moment later; until then a new connection is still over the cap.
    await waitForAsync(async () => {
      const again = await connect(port);
      await new Promise((r) => setTimeout(r, 100));
      if (again.isClosed()) return false;
      again.socket.write(line(14));
      return true;
    }, 5000);
    await untilAccepted(s, 4);
  }, 20_000);

  it('a connection silent for the idle timeout is closed; one that keeps sending stays open', async () => {
    const { s, port } = await start({ RECEIVER_TCP_IDLE_TIMEOUT_SECONDS: '30' });
    const clock = s.clock as ManualClock;
    const quiet = await connect(port);
    const chatty = await connect(port);
    quiet.socket.write(line(20));
    chatty.socket.write(line(21));
    await untilAccepted(s, 2);

    clock.advance(20_000);
    chatty.socket.write(line(22));
    await untilAccepted(s, 3);
    expect(quiet.isClosed()).toBe(false);

    clock.advance(15_000); // quiet: 35 s without a line; chatty: 15 s
    await quiet.closed;
    expect(chatty.isClosed()).toBe(false);
    chatty.socket.write(line(23));
    await untilAccepted(s, 4);
    expect((await s.api.get<{ lat: number }>('/api/status')).body.lat).toBe(23);
  });

  it('the limits are settings with sane defaults, and a bad value stops the start naming it', async () => {
    const { parseSimulatorConfig } = await import('../../src/config.js');
    const defaults = parseSimulatorConfig({}, () => 'x');
    expect(defaults.RECEIVER_TCP_IDLE_TIMEOUT_SECONDS).toBe(120);
    expect(defaults.RECEIVER_TCP_MAX_CONNECTIONS_PER_IP).toBe(4);
    expect(() => parseSimulatorConfig({ RECEIVER_TCP_MAX_CONNECTIONS_PER_IP: '0' }, () => 'x')).toThrow(
      /RECEIVER_TCP_MAX_CONNECTIONS_PER_IP/,
    );
    expect(() => parseSimulatorConfig({ RECEIVER_TCP_IDLE_TIMEOUT_SECONDS: 'soon' }, () => 'x')).toThrow(
      /RECEIVER_TCP_IDLE_TIMEOUT_SECONDS/,
    );
  });
});
