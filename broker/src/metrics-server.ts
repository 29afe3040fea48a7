import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type MetricsAuth, metricsAuthorized, metricsChallenge } from '@outpost/runtime/metrics-credentials';
import type { RunningBroker } from './broker.js';
import type { ListenerTls } from './listeners.js';

/**
 * Prometheus scrape endpoint and liveness for the broker process. With `auth`, /metrics needs its bearer
 * token or its basic-auth pair (METRICS_TOKEN, METRICS_BASIC_AUTH: the services' own); /health stays open
 * and says nothing more than that.
 */
export async function serveMetrics(
  broker: RunningBroker,
  port: number,
  host: string,
  tls?: ListenerTls | null,
  auth?: MetricsAuth | null,
): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { detail: 'method not allowed' });
    if (path === '/health') {
      if (auth && !metricsAuthorized(auth, req.headers.authorization))
        return json(200, { status: 'healthy' });
      return json(200, { status: 'healthy', broker: 'running', clients: broker.aedes.connectedClients });
    }
    if (path === '/metrics') {
      if (auth && !metricsAuthorized(auth, req.headers.authorization)) {
        res.setHeader('www-authenticate', metricsChallenge(auth));
        return json(401, {
          detail: 'Not authenticated: /metrics needs credentials (METRICS_TOKEN or METRICS_BASIC_AUTH)',
        });
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
