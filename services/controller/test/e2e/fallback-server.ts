// TEMPORARY: serves web/dist and forwards /api to the controller until the gateway mounts the console.
import { readFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

export async function consoleOrigin(controllerUrl: string): Promise<{ url: string; close(): Promise<void>; viaGateway: boolean }> {
  const probe = await fetch(`${controllerUrl}/`);
  if ((probe.headers.get('content-type') ?? '').startsWith('text/html')) {
    return { url: controllerUrl, viaGateway: true, close: async () => {} };
  }
  const srv: Server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/api/')) {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers: Record<string, string> = {};
      for (const h of ['authorization', 'content-type', 'accept']) if (req.headers[h]) headers[h] = String(req.headers[h]);
      const up = await fetch(`${controllerUrl}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      });
      res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await up.arrayBuffer()));
      return;
    }
    const file = join(DIST, path === '/' ? 'index.html' : path);
    if (!existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    viaGateway: false,
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
}
