import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { loadWebAssets, mountWebConsole } from '../src/web-console.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A console as `vite build web` leaves it: index.html, hashed assets with .br/.gz siblings. */
function built(): string {
  const dir = mkdtempSync(join(tmpdir(), 'web-console-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  const js = 'console.log("hello from the console");'.repeat(20);
  writeFileSync(join(dir, 'assets', 'app-1a2b.js'), js);
  writeFileSync(join(dir, 'assets', 'app-1a2b.js.br'), brotliCompressSync(js));
  writeFileSync(join(dir, 'assets', 'app-1a2b.js.gz'), gzipSync(js));
  return dir;
}

const app = () => createApp({ service: 'demo', version: '1.0.0', logger: pino({ level: 'silent' }) });

describe('web console', () => {
  it('serves index.html at / and every built file at its path from the first request on', async () => {
    const dir = built();
    const a = app();
    expect(mountWebConsole(a, { dir })).toEqual({ files: 2 });

    const page = await a.request('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toBe('<!doctype html><title>console</title>');
    expect((await a.request('/index.html')).status).toBe(200);

    const js = await a.request('/assets/app-1a2b.js', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-encoding')).toBe('br');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = js.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{22}"$/);

    const again = await a.request('/assets/app-1a2b.js', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    const plain = await a.request('/assets/app-1a2b.js');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toContain('hello from the console');
  });

  it('answers as before for what loadWebAssets reads at once', async () => {
    const dir = built();
    const assets = loadWebAssets(dir);
    expect([...assets.keys()].sort()).toEqual(['/assets/app-1a2b.js', '/index.html']);
    expect(assets.get('/assets/app-1a2b.js')?.br).not.toBeNull();
  });

  it('answers 503 at / naming the build command when the console is not built, and the API still works', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-console-empty-'));
    dirs.push(dir);
    const a = app();
    expect(mountWebConsole(a, { dir })).toEqual({ files: 0 });
    const res = await a.request('/');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ detail: 'The web console is not built; run `npm run build`' });
    expect((await a.request('/health')).status).toBe(200);
  });

  it('answers 404 for a file removed after the start, before anyone asked for it', async () => {
    const dir = built();
    const a = app();
    mountWebConsole(a, { dir });
    rmSync(join(dir, 'assets'), { recursive: true });
    const res = await a.request('/assets/app-1a2b.js');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not found: GET /assets/app-1a2b.js' });
  });
});
