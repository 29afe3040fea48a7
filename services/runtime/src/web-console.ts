import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
};

/** Vite puts content-hashed files under /assets/: a new build has new names, so they never go stale. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Everything else (index.html above all) is revalidated so a new build is picked up at once. */
const REVALIDATE = 'no-cache';

/** The console talks to its own origin only; map tiles, when an operator configures them, are images. */
const pageCsp = (remoteImages: boolean) =>
  `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:${remoteImages ? ' https:' : ''}; ` +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

interface Asset {
  body: Buffer;
  br: Buffer | null;
  gz: Buffer | null;
  type: string;
  etag: string;
  cache: string;
}

/** Every built file by URL path, with the .br/.gz siblings the build wrote. Read once: the console is small. */
export function loadWebAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(join(dir, 'index.html'))) return assets;
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const file = join(d, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (!file.endsWith('.br') && !file.endsWith('.gz')) {
        const body = readFileSync(file);
        const url = `/${relative(dir, file).split(sep).join('/')}`;
        assets.set(url, {
          body,
          br: existsSync(`${file}.br`) ? readFileSync(`${file}.br`) : null,
          gz: existsSync(`${file}.gz`) ? readFileSync(`${file}.gz`) : null,
          type: TYPES[extname(file)] ?? 'application/octet-stream',
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
          cache: url.startsWith('/assets/') ? IMMUTABLE : REVALIDATE,
        });
      }
    }
  };
  walk(dir);
  return assets;
}

function accepts(header: string | undefined, coding: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    if (name?.trim().toLowerCase() !== coding) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function send(c: Context, asset: Asset, csp: string): Response {
  const headers: Record<string, string> = {
    'content-type': asset.type,
    'cache-control': asset.cache,
    etag: asset.etag,
    vary: 'Accept-Encoding',
  };
  if (asset.type.startsWith('text/html')) headers['content-security-policy'] = csp;
  if (c.req.header('if-none-match') === asset.etag) return c.body(null, 304, headers);
  const ae = c.req.header('accept-encoding');
  let body = asset.body;
  if (asset.br && accepts(ae, 'br')) {
    body = asset.br;
    headers['content-encoding'] = 'br';
  } else if (asset.gz && accepts(ae, 'gzip')) {
    body = asset.gz;
    headers['content-encoding'] = 'gzip';
  }
  return c.body(new Uint8Array(body), 200, headers);
}

export interface WebConsoleOptions {
  /** Where `vite build web` wrote the console. */
  dir: string;
  /** Let the page load https: images (map tiles); everything else stays same-origin. */
  remoteImages?: boolean;
}

/**
 * Serves a service's built web console at / (index.html) and its files by their own paths, with the
 * build's .br/.gz siblings, ETags and cache headers. Without a build, / answers 503 naming the command
 * that makes one, and the API keeps working.
 */
export function mountWebConsole(app: OpenAPIHono, opts: WebConsoleOptions): { files: number } {
  const csp = pageCsp(opts.remoteImages ?? false);
  const assets = loadWebAssets(opts.dir);
  const index = assets.get('/index.html');
  if (!index) {
    app.get('/', (c) => c.json({ detail: 'The web console is not built; run `npm run build`' }, 503));
    return { files: 0 };
  }
  app.get('/', (c) => send(c, index, csp));
  for (const [path, asset] of assets) app.get(path, (c) => send(c, asset, csp));
  return { files: assets.size };
}
