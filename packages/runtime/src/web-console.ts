import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type MapOptions, mountMap, tilesOrigin } from './map-archive.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
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

/**
 * The console talks to its own origin only. The map's worker is a file of the build (same origin, so
 * default-src covers it); online map tiles, when MAP_TILES_URL is set, add that one origin for fetching.
 */
const pageCsp = (tiles: string | null) =>
  `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:${tiles ? ` ${tiles}` : ''}; ` +
  `connect-src 'self'${tiles ? ` ${tiles}` : ''}; frame-ancestors 'none'; base-uri 'self'; form-action 'self'`;

interface Asset {
  body: Buffer;
  br: Buffer | null;
  gz: Buffer | null;
  type: string;
  etag: string;
  cache: string;
}

/** Every built file's URL path and where it is on disk; the .br/.gz siblings go with their file. */
function listWebFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!existsSync(join(dir, 'index.html'))) return files;
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const file = join(d, entry.name);
      if (entry.isDirectory()) walk(file);
      // A map archive is served by byte ranges (map-archive.ts), never read whole.
      else if (!file.endsWith('.br') && !file.endsWith('.gz') && !file.endsWith('.pmtiles')) {
        files.set(`/${relative(dir, file).split(sep).join('/')}`, file);
      }
    }
  };
  walk(dir);
  return files;
}

function readAsset(url: string, file: string): Asset {
  const body = readFileSync(file);
  return {
    body,
    br: existsSync(`${file}.br`) ? readFileSync(`${file}.br`) : null,
    gz: existsSync(`${file}.gz`) ? readFileSync(`${file}.gz`) : null,
    type: TYPES[extname(file)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    cache: url.startsWith('/assets/') ? IMMUTABLE : REVALIDATE,
  };
}

/** Every built file by URL path, with the .br/.gz siblings the build wrote, all read now. */
export function loadWebAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [url, file] of listWebFiles(dir)) assets.set(url, readAsset(url, file));
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
  /** The console draws a map: serve its basemap archive (the build's own, or MAP_PMTILES) and config. */
  map?: MapOptions;
}

/**
 * Serves a service's built web console at / (index.html) and its files by their own paths, with the
 * build's .br/.gz siblings, ETags and cache headers. Without a build, / answers 503 naming the command
 * that makes one, and the API keeps working.
 */
export function mountWebConsole(app: OpenAPIHono, opts: WebConsoleOptions): { files: number } {
  const csp = pageCsp(tilesOrigin(opts.map?.tilesUrl));
  if (opts.map) mountMap(app, join(opts.dir, 'map', 'basemap.pmtiles'), opts.map);
  // Only the file list is read here; each file is read at its first request and kept (the console
  // is small): a service whose console nobody opens holds none of it.
  const files = listWebFiles(opts.dir);
  if (!files.has('/index.html')) {
    app.get('/', (c) => c.json({ detail: 'The web console is not built; run `npm run build`' }, 503));
    return { files: 0 };
  }
  const loaded = new Map<string, Asset>();
  const serve = (c: Context, url: string): Response => {
    let asset = loaded.get(url);
    if (!asset) {
      try {
        asset = readAsset(url, files.get(url)!);
      } catch {
        // Removed since the start (a rebuild in place): answer as for any unknown path.
        return c.json({ detail: `Not found: ${c.req.method} ${c.req.path}` }, 404);
      }
      loaded.set(url, asset);
    }
    return send(c, asset, csp);
  };
  app.get('/', (c) => serve(c, '/index.html'));
  for (const url of files.keys()) app.get(url, (c) => serve(c, url));
  return { files: files.size };
}
