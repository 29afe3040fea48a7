import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { FastReads } from './fast-read.js';
import { HardenedResponse, HardenedTlsResponse } from './security-headers.js';
import { type ServerTls, serverTlsFromEnv } from './tls.js';

export interface RunningServer {
  port: number;
  url: string;
  server: ReturnType<typeof serve>;
  close(): Promise<void>;
}

/**
 * Listens and resolves once the port is bound (port 0 picks a free one); rejects on EADDRINUSE.
 * HTTPS when `tls` is given, or when it is left out and TLS_CERT_FILE/TLS_KEY_FILE are set, so every
 * gateway follows the launcher's TLS setting without code of its own; `tls: null` forces plain HTTP.
 */
export function serveApp(
  // Structural on purpose: OpenAPIHono and Hono differ in their env type parameter.
  // biome-ignore lint/suspicious/noExplicitAny: any Hono flavour's fetch
  app: { fetch: (request: Request, ...rest: any[]) => Response | Promise<Response>; fastReads?: FastReads },
  opts: { port: number; host?: string; tls?: ServerTls | null },
  onServer?: (server: ReturnType<typeof serve>) => void,
): Promise<RunningServer> {
  const host = opts.host ?? '0.0.0.0';
  const tls = opts.tls === undefined ? serverTlsFromEnv() : opts.tls;
  // An app's FastReads answer first; what they leave goes to the Hono adapter's listener.
  const fast = app.fastReads;
  type Listener = (req: IncomingMessage, res: ServerResponse) => void;
  const front =
    (base: (options: object, listener: Listener) => ReturnType<typeof createHttpServer>) =>
    (options: object, listener: Listener) =>
      base(
        options,
        fast
          ? (req, res) => {
              if (!fast.serve(req, res)) listener(req, res);
            }
          : listener,
      );
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: app.fetch,
        port: opts.port,
        hostname: host,
        ...(tls
          ? {
              createServer: front(createHttpsServer as never) as unknown as typeof createHttpsServer,
              serverOptions: {
                cert: tls.cert,
                key: tls.key,
                ServerResponse: HardenedTlsResponse as typeof ServerResponse,
              },
            }
          : {
              createServer: front(createHttpServer as never) as unknown as typeof createHttpServer,
              serverOptions: { ServerResponse: HardenedResponse as typeof ServerResponse },
            }),
      },
      (info: AddressInfo) => {
        server.off('error', reject);
        const shown =
          host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
        resolve({
          port: info.port,
          url: `${tls ? 'https' : 'http'}://${shown}:${info.port}`,
          server,
          close: () =>
            new Promise<void>((done) => {
              const s = server as unknown as { closeAllConnections?: () => void };
              server.close(() => done());
              s.closeAllConnections?.();
            }),
        });
      },
    );
    server.once('error', reject);
    onServer?.(server);
  });
}
