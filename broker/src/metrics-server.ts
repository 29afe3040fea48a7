import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RunningBroker } from './broker.js';
import type { ListenerTls } from './listeners.js';

/** The request carries `Authorization: Bearer <token>`; compared in constant time. */
function bearerMatches(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const given = createHash('sha256')
    .update(m[1] as string)
    .digest();
  return timingSafeEqual(given, createHash('sha256').update(token).digest());
}

/**
 * Prometheus scrape endpoint and liveness for the broker process. With `token`, /metrics needs it as a
 * bearer token (METRICS_TOKEN, the services' own); /health stays open and says nothing more than that.
 */
export async function serveMetrics(
  broker: RunningBroker,
  port: number,
  host: string,
  tls?: ListenerTls | null,
  token?: string,
): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { detail: 'method not allowed' });
    if (path === '/health') {
      if (token && !bearerMatches(req, token)) return json(200, { status: 'healthy' });
      return json(200, { status: 'healthy', broker: 'running', clients: broker.aedes.connectedClients });
    }
    if (path === '/metrics') {
      if (token && !bearerMatches(req, token)) {
        res.setHeader('www-authenticate', 'Bearer realm="metrics"');
        return json(401, { detail: 'Not authenticated: /metrics needs credentials (METRICS_TOKEN)' });
      }
      broker.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': broker.registry.contentType });
          res.end(text);
        },
        (err: Error) => json(500, { detail: err.message }),
      );
      return;
    }
    json(404, { detail: 'not found' });
  };
  // https.Server is an http.Server at run time (it inherits the same request handling).
  const server = (
    tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, handle) : createServer(handle)
  ) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
