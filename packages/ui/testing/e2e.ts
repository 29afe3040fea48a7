// Node-side helpers for the consoles' end-to-end tests: Debian's Chromium through playwright-core,
// services as child processes, screenshots under <repo>/test-artifacts/.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const ARTIFACTS = join(REPO_ROOT, 'test-artifacts');

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 900 };

/**
 * Whether the browser tests run. Locally a missing Chromium skips them; under CI=true they run anyway
 * and fail at launch, so a CI image without Chromium cannot pass silently.
 */
export function browserTestsEnabled(): boolean {
  return existsSync(CHROMIUM) || process.env.CI === 'true';
}

export interface E2EBrowser {
  browser: Browser;
  /** A fresh, isolated browser session (its own cookies): "another browser" for cross-session checks. */
  newSession(
    viewport?: { width: number; height: number },
    colorScheme?: 'light' | 'dark',
  ): Promise<{ context: BrowserContext; page: Page }>;
  /** Console errors and uncaught page errors seen so far, across every page. */
  errors: string[];
  /** 4xx answers from /api/ the pages received and handled (logged by Chromium as console errors). */
  apiRejections: string[];
  close(): Promise<void>;
}

/** Headless Chromium with no network side-channels; launch() gives it a fresh temporary user-data dir. */
export async function openBrowser(): Promise<E2EBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      // No GPU here: WebGL (the consoles' maps) through SwiftShader, Chromium's CPU renderer.
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const errors: string[] = [];
  const apiRejections: string[] = [];
  return {
    browser,
    errors,
    apiRejections,
    async newSession(viewport = DESKTOP, colorScheme = 'light') {
      const context = await browser.newContext({ viewport, colorScheme, serviceWorkers: 'block' });
      const page = await context.newPage();
      watch(page, errors, apiRejections);
      context.on('page', (p) => watch(p, errors, apiRejections));
      return { context, page };
    },
    close: () => browser.close(),
  };
}

const HTTP_4XX = /^Failed to load resource: the server responded with a status of 4\d\d/;

/**
 * Chromium logs every 4xx answer to fetch() as a console error, even when the page handles it (a 401 from
 * the session check before login, a 409 start banner). Those answers under /api/ are the API working as
 * specified, so they are kept apart; anything else (script errors, a missing asset, a 5xx) is an error.
 */
function watch(page: Page, errors: string[], handled: string[]): void {
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const at = msg.location().url;
    let apiPath = false;
    try {
      apiPath = new URL(at).pathname.startsWith('/api/');
    } catch {
      apiPath = false;
    }
    if (apiPath && HTTP_4XX.test(msg.text())) handled.push(`${at}: ${msg.text()}`);
    else errors.push(`${page.url()}: ${msg.text()} (${at})`);
  });
  page.on('pageerror', (err) => errors.push(`${page.url()}: ${err.message}`));
}

/** Writes test-artifacts/<name>.png (full page). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * The texts inside `scope` drawn in the page's red (its --bad colour, computed): red is for faults
 * only (packages/ui status.ts), so a page with nothing wrong answers [].
 */
export function redTexts(page: Page, scope: string): Promise<string[]> {
  // Runs in the page; typed structurally, as this file is compiled without the DOM library.
  type El = { textContent: string | null; querySelectorAll(selector: string): Iterable<El> };
  type Win = {
    document: {
      createElement(tag: string): { style: { color: string }; remove(): void };
      body: { append(node: unknown): void };
    };
    getComputedStyle(el: unknown): { color: string };
  };
  return page.locator(scope).evaluateAll((roots: El[]) => {
    const w = globalThis as unknown as Win;
    const probe = w.document.createElement('span');
    probe.style.color = 'var(--bad)';
    w.document.body.append(probe);
    const red = w.getComputedStyle(probe).color;
    probe.remove();
    const out: string[] = [];
    for (const root of roots)
      for (const el of [root, ...root.querySelectorAll('*')]) {
        const text = el.textContent?.trim();
        if (text && w.getComputedStyle(el).color === red) out.push(text);
      }
    return out;
  });
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface ServiceProcess {
  proc: ChildProcess;
  url: string;
  /** stdout and stderr so far, for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
  /** Dies at once, as on a power cut: no goodbye on the bus (the broker's last will speaks for it). */
  kill(): Promise<void>;
}

/** Runs `node <script>` with `env` and waits until GET <url>/health answers. */
export async function startService(
  script: string,
  env: Record<string, string>,
  port: number,
): Promise<ServiceProcess> {
  const proc = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${script} exited (${proc.exitCode}): ${out}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${script} did not answer on ${url}/health: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const end = async (signal: NodeJS.Signals) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill(signal);
    const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  return { proc, url, output: () => out, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
export { colourAt, mapIdle, mapZoom, near, onScreen, renderedValues, rgb, sourceValues } from './map.js';
