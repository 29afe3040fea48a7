import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@outpost/runtime';
import { type WebSocket, WebSocketServer } from 'ws';
import { AUTH_CHALLENGE, basicAuthOk, type Credentials } from './basic-auth.js';
import { SharedFrames } from './frames.js';
import { type SitesAccess, sitesVisible } from './sites-access.js';

export interface FleetSocketOptions {
  path?: string;
  logger: Logger;
  auth: Credentials | null;
  /** Origins besides the dashboard's own whose pages may open the stream (ALLOWED_ORIGINS). */
  allowedOrigins?: string[];
  maxClients: number;
  /** The fleet_state message a new client receives at once. */
  current: () => Buffer;
  /** The same without the generator sites, for a client that may not see them (sites-access.ts). */
  currentFleetOnly?: () => Buffer;
  /** Who sees the sites; unset, every client does. */
  sites?: SitesAccess;
  /**
   * A client is dropped when more than this many bytes are still unsent at the next broadcast.
   * Default: two messages' worth (at least 1 MiB), i.e. a client more than about two seconds behind.
   */
  maxBufferedBytes?: (frameBytes: number) => number;
}

export interface FleetSockets {
  readonly clients: number;
  /** Clients dropped because they could not keep up. */
  readonly dropped: number;
  /** `fleetOnly` goes to the clients that may not see the generator sites. */
  broadcast(message: Buffer, fleetOnly?: Buffer): void;
  close(): Promise<void>;
}

interface Client {
  ws: WebSocket;
  socket: Duplex;
  /** Agreed permessage-deflate with a fresh context per message and the full window. */
  compressed: boolean;
  /** May see the generator sites (decided at the upgrade, from the socket's peer and its login). */
  sites: boolean;
}

const MIB = 1024 * 1024;
const defaultMaxBuffered = (n: number) => Math.max(MIB, 2 * n);

function refuse(socket: Duplex, status: number, reason: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ detail: reason });
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${extra}Connection: close\r\n\r\n${body}`,
  );
}

/**
 * A browser always names the page's origin; another site's page must not read the fleet through a
 * visitor's browser (inside the LAN, past DASHBOARD_AUTH the browser would send). Clients that are
 * not browsers send no Origin and are let through.
 */
export function originAllowed(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and anything malformed
  }
  if (allowed.has(parsed.origin)) return true;
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.host === req.headers.host;
}

/** Whether the handshake answer agreed to permessage-deflate in a form a shared compressed frame fits. */
function sharedDeflateAgreed(responseHeaders: string[]): boolean {
  const line = responseHeaders.find((h) => /^sec-websocket-extensions:/i.test(h));
  if (!line || !/permessage-deflate/i.test(line)) return false;
  if (!/server_no_context_takeover/i.test(line)) return false;
  const bits = /server_max_window_bits=(\d+)/i.exec(line);
  return !bits || Number(bits[1]) >= 15;
}

/**
 * `/ws`: fleet_state on connect and at every broadcast. Clients only listen; what they send is ignored.
 *
 * Each message is framed once and the same bytes are written to every socket; clients that negotiated
 * permessage-deflate get one shared compressed frame (several times smaller for a large fleet) instead
 * of a compression per client. A client whose unsent backlog outgrows the bound is terminated, so a
 * slow reader costs a bounded amount of memory.
 */
export function attachFleetSockets(server: Server, opts: FleetSocketOptions): FleetSockets {
  const path = opts.path ?? '/ws';
  const log = opts.logger.child({ component: 'ws' });
  const bound = opts.maxBufferedBytes ?? defaultMaxBuffered;
  const origins = new Set(opts.allowedOrigins ?? []);
  const wss = new WebSocketServer({
    noServer: true,
    // Negotiated so clients accept compressed frames; ws itself never compresses (threshold), we do, once.
    perMessageDeflate: { serverNoContextTakeover: true, threshold: Number.MAX_SAFE_INTEGER },
    maxPayload: 4096,
    clientTracking: false,
  });
  const clients = new Set<Client>();
  const agreed = new WeakMap<IncomingMessage, boolean>();
  let dropped = 0;
  wss.on('headers', (headers, req) => agreed.set(req, sharedDeflateAgreed(headers)));

  const write = (c: Client, frames: SharedFrames): void => {
    if (c.ws.readyState !== c.ws.OPEN || c.socket.destroyed) return;
    const frame = frames.frame(c.compressed);
    const limit = bound(frame.length);
    if (c.socket.writableLength > limit) {
      dropped++;
      log.warn(
        { buffered: c.socket.writableLength, limit },
        'dropping a WebSocket client that cannot keep up',
      );
      c.ws.terminate();
      return;
    }
    c.socket.write(frame);
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return refuse(socket, 404, 'Not Found');
    if (!originAllowed(req, origins)) {
      log.warn({ origin: String(req.headers.origin).slice(0, 200) }, 'WebSocket from another origin refused');
      return refuse(socket, 403, 'Forbidden');
    }
    if (opts.auth && !basicAuthOk(req.headers.authorization, opts.auth)) {
      return refuse(socket, 401, 'Unauthorized', { 'WWW-Authenticate': AUTH_CHALLENGE });
    }
    if (clients.size >= opts.maxClients) return refuse(socket, 503, 'Service Unavailable');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const sites =
        !opts.sites || sitesVisible(opts.sites, req.socket.remoteAddress, req.headers.authorization);
      const client: Client = { ws, socket, compressed: agreed.get(req) === true, sites };
      clients.add(client);
      ws.on('close', () => clients.delete(client));
      ws.on('error', () => ws.terminate());
      // Listening only; anything received is ignored (maxPayload closes a flood).
      ws.on('message', () => {});
      const first = sites || !opts.currentFleetOnly ? opts.current() : opts.currentFleetOnly();
      write(client, new SharedFrames(first));
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    get clients() {
      return clients.size;
    },
    get dropped() {
      return dropped;
    },
    broadcast(message, fleetOnly) {
      const frames = new SharedFrames(message);
      const open = fleetOnly ? new SharedFrames(fleetOnly) : frames;
      for (const c of clients) write(c, c.sites ? frames : open);
    },
    close() {
      server.off('upgrade', onUpgrade);
      for (const c of clients) c.ws.terminate();
      clients.clear();
      return new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
