import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../src/app.js';
import { mapEnvShape, parseRange } from '../src/map-archive.js';
import { mountWebConsole } from '../src/web-console.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A PMTiles v3 look-alike: the magic, the version, then bytes 0..255 repeated. */
const archiveBytes = (size: number): Buffer => {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = i % 256;
  b.write('PMTiles', 0, 'latin1');
  b[7] = 3;
  return b;
};

/** A console build with a map: index.html and map/basemap.pmtiles. */
function built(size = 5000): { dir: string; bytes: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'map-archive-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'map'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  const bytes = archiveBytes(size);
  writeFileSync(join(dir, 'map', 'basemap.pmtiles'), bytes);
  return { dir, bytes };
}

const app = () => createApp({ service: 'demo', version: '1.0.0', logger: pino({ level: 'silent' }) });
const env = z.object(mapEnvShape);

describe('map archive', () => {
  it('answers byte ranges of the built-in archive as the PMTiles protocol asks for them', async () => {
    const { dir, bytes } = built();
    const a = app();
    mountWebConsole(a, { dir, map: {} });
    const head = await a.request('/map/basemap.pmtiles', { headers: { range: 'bytes=0-126' } });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toBe(`bytes 0-126/${bytes.length}`);
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await head.arrayBuffer())).toEqual(bytes.subarray(0, 127));
    const mid = await a.request('/map/basemap.pmtiles', { headers: { range: 'bytes=4000-4999' } });
    expect(Buffer.from(await mid.arrayBuffer())).toEqual(bytes.subarray(4000, 5000));
    const tail = await a.request('/map/basemap.pmtiles', { headers: { range: 'bytes=-10' } });
    expect(tail.headers.get('content-range')).toBe(`bytes 4990-4999/${bytes.length}`);
    const past = await a.request('/map/basemap.pmtiles', { headers: { range: 'bytes=9000-' } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    const whole = await a.request('/map/basemap.pmtiles');
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(bytes);
    expect(await (await a.request('/map/config.json')).json()).toEqual({
      archive: '/map/basemap.pmtiles',
      style: 'outpost',
      tiles_url: null,
    });
  });

  it('serves MAP_PMTILES instead when set, drawn with the Protomaps layers', async () => {
    const { dir } = built();
    const extract = join(dir, 'region.pmtiles');
    const other = archiveBytes(300);
    other[200] = 42;
    writeFileSync(extract, other);
    const a = app();
    mountWebConsole(a, { dir, map: { pmtiles: extract } });
    const r = await a.request('/map/basemap.pmtiles', { headers: { range: 'bytes=200-200' } });
    expect([...new Uint8Array(await r.arrayBuffer())]).toEqual([42]);
    expect(((await (await a.request('/map/config.json')).json()) as { style: string }).style).toBe(
      'protomaps',
    );
  });

  it('keeps the page on its own origin unless MAP_TILES_URL names one tile host', async () => {
    const { dir } = built();
    const plain = app();
    mountWebConsole(plain, { dir, map: {} });
    const csp = (await plain.request('/')).headers.get('content-security-policy')!;
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("img-src 'self' data:;");
    expect(csp).not.toContain('https:');
    expect(csp).not.toContain('blob:');
    const online = app();
    mountWebConsole(online, { dir, map: { tilesUrl: 'https://tiles.example.org/{z}/{x}/{y}.png' } });
    const csp2 = (await online.request('/')).headers.get('content-security-policy')!;
    expect(csp2).toContain("connect-src 'self' https://tiles.example.org;");
    expect(csp2).toContain("img-src 'self' data: https://tiles.example.org;");
  });

  it('validates MAP_PMTILES and MAP_TILES_URL at start', () => {
    const { dir } = built();
    expect(env.safeParse({}).success).toBe(true);
    expect(env.safeParse({ MAP_PMTILES: join(dir, 'map', 'basemap.pmtiles') }).success).toBe(true);
    const missing = env.safeParse({ MAP_PMTILES: join(dir, 'nope.pmtiles') });
    expect(missing.error?.issues[0]?.message).toContain('cannot be read (ENOENT)');
    const notArchive = env.safeParse({ MAP_PMTILES: join(dir, 'index.html') });
    expect(notArchive.error?.issues[0]?.message).toContain('not a PMTiles archive');
    expect(env.safeParse({ MAP_TILES_URL: 'https://t.example.org/{z}/{x}/{y}.png' }).success).toBe(true);
    expect(env.safeParse({ MAP_TILES_URL: 'http://t.example.org/{z}/{x}/{y}.png' }).success).toBe(false);
    expect(env.safeParse({ MAP_TILES_URL: 'https://t.example.org/tiles.png' }).success).toBe(false);
  });

  it('reads a Range header as RFC 9110 does', () => {
    expect(parseRange(undefined, 10)).toBeNull();
    expect(parseRange('bytes=0-0', 10)).toEqual({ start: 0, end: 0 });
    expect(parseRange('bytes=5-', 10)).toEqual({ start: 5, end: 9 });
    expect(parseRange('bytes=5-100', 10)).toEqual({ start: 5, end: 9 });
    expect(parseRange('bytes=-3', 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange('bytes=0-1,4-5', 10)).toBeNull();
    expect(parseRange('bytes=10-', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=4-2', 10)).toBe('unsatisfiable');
    expect(parseRange('items=0-1', 10)).toBeNull();
  });
});
