import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningBroker } from './broker.js';

/** Prometheus scrape endpoint and liveness for the broker process. */
export async function serveMetrics(
  broker: RunningBroker,
  port: number,
  host: string,
): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { detail: 'method not allowed' });
    if (path === '/health') {
      return json(200, { status: 'healthy', broker: 'running', clients: broker.aedes.connectedClients });
    }
    if (path === '/metrics') {
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
  });
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
