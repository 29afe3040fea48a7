import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect as tcpConnect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { attachFleetSockets, type FleetSockets } from '../src/gateway/ws-fleet.js';
import { silentLogger, waitFor } from './helpers.js';

let server: Server | null = null;
let sockets: FleetSockets | null = null;

afterEach(async () => {
  await sockets?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
  sockets = null;
});

async function listen(maxClients = 10): Promise<string> {
  const srv = createServer((_req, res) => res.end());
  server = srv;
  sockets = attachFleetSockets(srv, {
    logger: silentLogger,
    auth: null,
    maxClients,
    current: () => Buffer.from('{"type":"fleet_state","timestamp_ms":0,"simulators":[],"generators":[]}'),
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  return `ws://127.0.0.1:${(srv.address() as AddressInfo).port}/ws`;
}

function connect(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const ws = new WebSocket(url, options);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

describe('WebSocket clients that cannot keep up', () => {
  it('a client that stops reading is dropped while a reading client gets every message', async () => {
    const url = await listen();
    const fast = await connect(url);
    let fastBytes = 0;
    let fastMessages = 0;
    fast.on('message', (d: Buffer) => {
      if (d.length < 1024) return; // the greeting snapshot
      fastMessages++;
      fastBytes += d.length;
    });
    const slow = await connect(url);
    // Stops reading: the kernel buffers fill, then the server's own queue grows.
    (slow as unknown as { _socket: { pause(): void } })._socket.pause();

    // Incompressible text, so the backlog is as large as the message.
    const big = Buffer.from(randomBytes(768 * 1024).toString('base64'));
    const sent = 40;
    for (let i = 0; i < sent; i++) {
      sockets?.broadcast(big);
      await new Promise((r) => setTimeout(r, 15));
    }
    expect(sockets?.dropped).toBe(1);
    expect(sockets?.clients).toBe(1);
    await waitFor(() => fastMessages === sent, 10_000, 'every message at the fast client');
    expect(fastBytes).toBe(sent * big.length);
    fast.close();
    slow.terminate();
  }, 20_000);

  it('clients beyond the configured maximum are refused with 503', async () => {
    const url = await listen(2);
    const a = await connect(url);
    const b = await connect(url);
    const c = new WebSocket(url);
    const status = await new Promise<number>((resolve) =>
      c.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(503);
    a.close();
    b.close();
  });

  it('every client gets the same message; clients that negotiated compression get it several times smaller', async () => {
    const url = await listen();
    let tcp: Socket | null = null;
    const deflating = await connect(url, {
      createConnection: ((o: { port: number; host: string }) => {
        tcp = tcpConnect(o.port, o.host);
        return tcp;
      }) as never,
    });
    const plain = await connect(url, { perMessageDeflate: false });
    const fleet = {
      type: 'fleet_state',
      timestamp_ms: 1,
      simulators: Array.from({ length: 2000 }, (_, i) => ({
        id: `sim-${i}`,
        online: i % 2 === 0,
        lat: 40 + i / 1000,
      })),
      generators: [],
    };
    const message = Buffer.from(JSON.stringify(fleet));
    const got = (ws: WebSocket) =>
      new Promise<string>((resolve) =>
        ws.on('message', (d: Buffer) => d.length > 1000 && resolve(String(d))),
      );
    const a = got(deflating);
    const b = got(plain);
    const before = (tcp as unknown as Socket).bytesRead;
    sockets?.broadcast(message);
    expect(JSON.parse(await a)).toEqual(fleet);
    expect(JSON.parse(await b)).toEqual(fleet);
    expect(deflating.extensions).toBe('permessage-deflate');
    expect((tcp as unknown as Socket).bytesRead - before).toBeLessThan(message.length / 4);
    deflating.close();
    plain.close();
  });
});
