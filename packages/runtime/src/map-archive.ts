import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';

/** Where a console's map finds its basemap archive (the PMTiles protocol asks it for byte ranges). */
export const MAP_ARCHIVE_PATH = '/map/basemap.pmtiles';
/** What the console's map reads first: which archive, how to draw it, and any online tiles. */
export const MAP_CONFIG_PATH = '/map/config.json';

/** Reads the first bytes of a file: a PMTiles v3 archive starts with `PMTiles` and the byte 3. */
function pmtilesProblem(path: string): string | null {
  let fd: number;
  try {
    if (!statSync(path).isFile()) return 'not a file';
    fd = openSync(path, 'r');
  } catch (err) {
    return `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  try {
    const head = Buffer.alloc(8);
    readSync(fd, head, 0, 8, 0);
    if (head.subarray(0, 7).toString('latin1') !== 'PMTiles') return 'not a PMTiles archive';
    if (head[7] !== 3) return `PMTiles version ${head[7]}, expected 3`;
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The map's variables, shared by every service with a console map (simulator, dashboard). */
export const mapEnvShape = {
  /** A regional Protomaps basemap extract (PMTiles v3) drawn instead of the built-in archive. */
  MAP_PMTILES: z
    .string()
    .min(1)
    .optional()
    .superRefine((v, ctx) => {
      const problem = v === undefined ? null : pmtilesProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: `${v}: ${problem}` });
    }),
  /** Online raster tiles over the basemap, `https://host/{z}/{x}/{y}.png`; unset, nothing but this service is asked. */
  MAP_TILES_URL: z
    .string()
    .max(2000)
    .optional()
    .superRefine((v, ctx) => {
      if (v === undefined) return;
      let url: URL | null = null;
      try {
        url = new URL(v.replaceAll(/\{[xyz]\}/g, '0'));
      } catch {
        url = null;
      }
      if (url?.protocol !== 'https:')
        ctx.addIssue({ code: 'custom', message: 'expected an https:// URL template' });
      else if (!['{z}', '{x}', '{y}'].every((p) => v.includes(p)))
        ctx.addIssue({ code: 'custom', message: 'expected {z}, {x} and {y} in the template' });
    }),
} as const;

export interface MapOptions {
  /** MAP_PMTILES: a Protomaps extract; unset, the archive the console's build carries. */
  pmtiles?: string | undefined;
  /** MAP_TILES_URL. */
  tilesUrl?: string | undefined;
}

/** The origin MAP_TILES_URL points at, for the page's CSP (the only other origin a map may reach). */
export const tilesOrigin = (tilesUrl: string | undefined): string | null =>
  tilesUrl ? new URL(tilesUrl.replaceAll(/\{[xyz]\}/g, '0')).origin : null;

type Range = { start: number; end: number } | 'unsatisfiable' | null;

/**
 * One `bytes=` range of a file of `size` bytes. Several ranges, another unit or a malformed header are
 * ignored (null: the whole file, as RFC 9110 allows); a well-formed range past the end is unsatisfiable.
 */
export function parseRange(header: string | undefined, size: number): Range {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, from, to] = m;
  if (from === '' && to === '') return 'unsatisfiable';
  if (from === '') {
    // The last N bytes.
    const n = Number(to);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

function sendArchive(c: Context, file: string): Response {
  let size: number;
  let mtime: number;
  try {
    const st = statSync(file);
    size = st.size;
    mtime = st.mtimeMs;
  } catch {
    return c.json({ detail: 'The map archive is missing: rebuild the console (`npm run build`)' }, 404);
  }
  const headers: Record<string, string> = {
    'content-type': 'application/vnd.pmtiles',
    'accept-ranges': 'bytes',
    // Revalidated, not kept: MAP_PMTILES may name another file after a restart.
    'cache-control': 'no-cache',
    etag: `"${size.toString(36)}-${Math.floor(mtime).toString(36)}"`,
  };
  const range = parseRange(c.req.header('range'), size);
  if (range === 'unsatisfiable') {
    return c.body(null, 416, { ...headers, 'content-range': `bytes */${size}` });
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  headers['content-length'] = String(end - start + 1);
  if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  if (c.req.method === 'HEAD' || size === 0) return c.body(null, range ? 206 : 200, headers);
  // Streamed from the file: a regional extract can be hundreds of megabytes, and a tile is a few KB of it.
  const body = Readable.toWeb(createReadStream(file, { start, end })) as ReadableStream<Uint8Array>;
  return c.body(body, range ? 206 : 200, headers);
}

/**
 * GET /map/basemap.pmtiles (byte ranges, as the PMTiles protocol reads it) and GET /map/config.json.
 * `builtIn` is the archive the console's build carries, used unless MAP_PMTILES names another.
 */
export function mountMap(app: OpenAPIHono, builtIn: string, opts: MapOptions): void {
  const file = opts.pmtiles ?? builtIn;
  const config = {
    archive: MAP_ARCHIVE_PATH,
    // The built-in archive's own layers, or the Protomaps basemap layers of an extract.
    style: opts.pmtiles ? 'protomaps' : 'outpost',
    tiles_url: opts.tilesUrl ?? null,
  };
  app.get(MAP_ARCHIVE_PATH, (c) => sendArchive(c, file));
  app.get(MAP_CONFIG_PATH, (c) => c.json(config, 200, { 'cache-control': 'no-cache' }));
}
