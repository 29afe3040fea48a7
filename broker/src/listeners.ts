import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import type { Duplex } from 'node:stream';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Aedes } from 'aedes';
import { coalesceWrites } from './write-coalescing.js';
import { createWebSocketStream, WebSocketServer } from 'ws';

/** PEM certificate chain and key of a TLS listener. */
export interface ListenerTls {
  cert: Buffer | string;
  key: Buffer | string;
}

export interface Listener {
  port: number;
  close(): Promise<void>;
}

/**
 * Called for each new connection before aedes sees it, with the peer's address; false drops it. The
 * broker uses it for its per-address limits and packet size guard.
 */
export type Admit = (stream: Duplex, ip: string) => boolean;

const admitAll: Admit = () => true;

/** Largest WebSocket message: one MQTT packet of the broker's limit plus framing slack. */
export interface WebSocketLimits {
  maxPayload?: number;
}

function listen(server: TcpServer | HttpServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function trackSockets(server: TcpServer | HttpServer): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  return sockets;
}

function shutdown(server: TcpServer | HttpServer, sockets: Set<Socket>): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    for (const s of sockets) s.destroy();
  });
}

export async function listenTcp(
  aedes: Aedes,
  port: number,
  host: string,
  admit: Admit = admitAll,
): Promise<Listener> {
  const server = createTcpServer((socket) => {
    if (!admit(socket, socket.remoteAddress ?? '')) return void socket.destroy();
    socket.setNoDelay(true);
    coalesceWrites(socket);
    aedes.handle(socket);
  });
  const sockets = trackSockets(server);
  const bound = await listen(server, port, host);
  return { port: bound, close: () => shutdown(server, sockets) };
}

/**
 * MQTT on a Unix socket, for the services on this host: what they send (their passwords in CONNECT)
 * never crosses a network interface, so a raw socket on loopback sees none of it. The socket is made
 * 0660, so only the broker's user and group may connect; a stale socket left by a crash is replaced,
 * anything else at the path is refused.
 */
export async function listenUnix(aedes: Aedes, path: string, admit: Admit = admitAll): Promise<Listener> {
  const existing = lstatSync(path, { throwIfNoEntry: false });
  if (existing && !existing.isSocket()) throw new Error(`MQTT_SOCKET ${path} exists and is not a socket`);
  if (existing) unlinkSync(path);
  const server = createTcpServer((socket) => {
    // One key for every local client in the per-address limits, as 127.0.0.1 is for loopback TCP.
    if (!admit(socket, 'unix')) return void socket.destroy();
    coalesceWrites(socket);
    aedes.handle(socket);
  });
  const sockets = trackSockets(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o660);
  return { port: 0, close: () => shutdown(server, sockets) };
}

/**
 * MQTT over TLS (MQTTS). A client that does not speak TLS, or distrusts the certificate, fails its
 * handshake and is dropped; aedes never sees it.
 */
export async function listenTls(
  aedes: Aedes,
  port: number,
  host: string,
  tls: ListenerTls,
  admit: Admit = admitAll,
): Promise<Listener> {
  const server = createTlsServer({ cert: tls.cert, key: tls.key }, (socket: TLSSocket) => {
    if (!admit(socket, socket.remoteAddress ?? '')) return void socket.destroy();
    socket.setNoDelay(true);
    coalesceWrites(socket);
    aedes.handle(socket);
  });
  // A failed handshake is the client's problem; without a listener Node would only log it.
  server.on('tlsClientError', () => {});
  const sockets = trackSockets(server);
  const bound = await listen(server, port, host);
  return { port: bound, close: () => shutdown(server, sockets) };
}

/** MQTT over WebSocket (subprotocol `mqtt`), as browsers and MQTT explorers use it; WSS when `tls` is given. */
export async function listenWebSocket(
  aedes: Aedes,
  port: number,
  host: string,
  tls?: ListenerTls,
  admit: Admit = admitAll,
  limits: WebSocketLimits = {},
): Promise<Listener> {
  const answer = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(426, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ detail: 'MQTT over WebSocket only: upgrade with subprotocol "mqtt"' }));
  };
  const http = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, answer) : createHttpServer(answer);
  if (tls) http.on('tlsClientError', () => {});
  const sockets = trackSockets(http);
  // ws closes a connection whose message passes maxPayload (1009) before buffering it whole.
  const wss = new WebSocketServer({
    server: http,
    ...(limits.maxPayload ? { maxPayload: limits.maxPayload } : {}),
  });
  wss.on('connection', (ws, req: IncomingMessage) => {
    const stream = createWebSocketStream(ws);
    if (!admit(stream, req.socket.remoteAddress ?? '')) {
      ws.terminate();
      return;
    }
    // A browser tab closing mid-frame is routine; aedes sees the stream end either way.
    stream.on('error', () => {});
    ws.on('error', () => {});
    aedes.handle(stream, req);
  });
  const bound = await listen(http, port, host);
  return {
    port: bound,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await shutdown(http, sockets);
    },
  };
}
