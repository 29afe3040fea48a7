import {
  browserTestsEnabled,
  DESKTOP,
  type E2EBrowser,
  openBrowser,
  PHONE,
  screenshot,
} from '@outpost/ui/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleOrigin } from './fallback-server.js';
import { ADMIN, PASSWORD, type Stack, startStack } from './stack.js';

const NOT_ARMED = 'Cannot start - automation is not armed';
const MAIN_PAGES = ['status', 'history', 'settings'] as const;

describe.skipIf(!browserTestsEnabled())('generator console in Chromium', () => {
  let stack: Stack;
  let origin: Awaited<ReturnType<typeof consoleOrigin>>;
  let b: E2EBrowser;

  beforeAll(async () => {
    stack = await startStack();
    origin = await consoleOrigin(stack.controller.url);
    b = await openBrowser();
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await origin?.close();
    await stack?.close();
  });

  async function login(page: Page): Promise<void> {
    await page.goto(origin.url);
    await page.locator('input[name=username]').fill(ADMIN);
    await page.locator('input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Control' }).waitFor();
  }

  const text = (page: Page, id: string) => page.getByTestId(id).textContent();

  it('refuses a wrong password with the server detail, then logs in and out', async () => {
    const { context, page } = await b.newSession(PHONE);
    await page.goto(origin.url);
    await screenshot(page, 'controller-login-phone');
    await page.locator('input[name=username]').fill(ADMIN);
    await page.locator('input[name=password]').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid username or password' }).waitFor();
    await page.locator('input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Control' }).waitFor();
    // The token survives a reload; logging out revokes it.
    await page.reload();
    await page.getByRole('heading', { name: 'Control' }).waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await page.setViewportSize(DESKTOP);
    await screenshot(page, 'controller-login-desktop');
    await context.close();
  }, 30_000);

  it('refuses a start while disarmed with the server message and stays idle', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    await login(page);
    await expect.poll(() => text(page, 'armed')).toBe('disarmed');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: NOT_ARMED }).waitFor();
    await expect.poll(() => text(page, 'gen-state')).toBe('Idle');
    expect((await stack.nodeStatus()).relay_on).toBe(false);
    await context.close();
  }, 20_000);

  it('arms, starts for a duration, shows the run ticking and the node relay ON, then stops', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    await login(page);
    await page.getByRole('button', { name: 'Arm', exact: true }).click();
    await expect.poll(() => text(page, 'armed')).toBe('armed');
    await expect.poll(() => text(page, 'node-link'), { timeout: 10_000 }).toBe('connected');

    await page.locator('input[name=duration_minutes]').fill('30');
    await page.locator('input[name=notes]').fill('e2e run');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(() => text(page, 'gen-state')).toBe('Running');
    expect(await text(page, 'trigger')).toBe('manual');
    expect(await text(page, 'auto-stop')).not.toBe('–');

    const seconds = async () => Number(await page.getByTestId('runtime').getAttribute('data-seconds'));
    const first = await seconds();
    await expect.poll(seconds, { timeout: 5000 }).toBeGreaterThanOrEqual(first + 2);
    await expect.poll(() => text(page, 'runtime')).toMatch(/^\d+ s$|min/);

    await expect.poll(() => text(page, 'node-relay'), { timeout: 10_000 }).toBe('ON');
    expect((await stack.nodeStatus()).relay_on).toBe(true);
    await screenshot(page, 'controller-status-running-desktop');

    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => text(page, 'gen-state')).toBe('Idle');
    await expect.poll(() => text(page, 'node-relay'), { timeout: 10_000 }).toBe('OFF');
    await expect.poll(async () => (await stack.nodeStatus()).relay_on).toBe(false);

    // The run is in the history with its notes.
    await page.getByRole('link', { name: 'History' }).click();
    await expect.poll(() => page.getByTestId('history').locator('tbody tr').first().textContent()).toContain('e2e run');
    await expect.poll(() => text(page, 'stats-runs')).toBe('1');
    await context.close();
  }, 40_000);

  it('drives the bms signal and the HOA selector from the dev panel', async () => {
    const { context, page } = await b.newSession(DESKTOP);
    await login(page);
    await page.getByRole('heading', { name: 'Development mode' }).waitFor();
    await page.getByRole('button', { name: 'Signal HIGH' }).click();
    await expect.poll(() => text(page, 'gen-state'), { timeout: 5000 }).toBe('Running');
    expect(await text(page, 'trigger')).toBe('bms');
    await page.getByRole('button', { name: 'Signal LOW' }).click();
    await expect.poll(() => text(page, 'gen-state'), { timeout: 5000 }).toBe('Idle');

    await page.locator('input[name=hoa][value=quiet]').check();
    await expect.poll(() => text(page, 'hoa-banner')).toContain('Quiet');
    await page.locator('input[name=hoa][value=auto]').check();
    await expect.poll(() => page.getByTestId('hoa-banner').count()).toBe(0);
    await context.close();
  }, 30_000);

  it('shows the EPO banner and the server refusal while the relay node EPO is engaged', async () => {
    const { context, page } = await b.newSession(PHONE, 'dark');
    await login(page);
    expect(await text(page, 'armed')).toBe('armed');
    await stack.setEpo(true);
    try {
      await expect.poll(() => text(page, 'epo-banner'), { timeout: 10_000 }).toContain('EPO engaged');
      expect(await text(page, 'dev-epo')).toBe('engaged');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'Cannot start - hardware safety (EPO)' }).waitFor();
      await expect.poll(() => text(page, 'gen-state')).toBe('Idle');
      expect((await stack.nodeStatus()).relay_on).toBe(false);
      await screenshot(page, 'controller-status-epo-phone-dark');
    } finally {
      await stack.setEpo(false);
    }
    await expect.poll(() => page.getByTestId('epo-banner').count(), { timeout: 10_000 }).toBe(0);
    await context.close();
  }, 30_000);

  it('renders every main page at phone and desktop width without sideways overflow', async () => {
    for (const [label, viewport, scheme] of [
      ['phone', PHONE, 'dark'],
      ['desktop', DESKTOP, 'light'],
    ] as const) {
      const { context, page } = await b.newSession(viewport, scheme);
      await login(page);
      for (const id of MAIN_PAGES) {
        await page.goto(`${origin.url}/#/${id}`);
        await page.locator('nav.tabs a[aria-current=page]').waitFor();
        await page.waitForLoadState('networkidle');
        await screenshot(page, `controller-${id}-${label}`);
        const width = await page.evaluate<number>('document.documentElement.scrollWidth');
        expect(width, `${id} at ${label}`).toBeLessThanOrEqual(viewport.width);
      }
      if (scheme === 'dark') {
        expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe('rgb(17, 20, 24)');
      }
      await context.close();
    }
  }, 60_000);

  it('served the console compressed and cacheable, and the pages logged no errors', async () => {
    if (origin.viaGateway) {
      const index = await fetch(`${origin.url}/`, { headers: { 'accept-encoding': 'br' } });
      expect(index.headers.get('content-encoding')).toBe('br');
      expect(index.headers.get('cache-control')).toBe('no-cache');
      const html = await index.text();
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const js = await fetch(`${origin.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(js.headers.get('content-encoding')).toBe('gzip');
      expect(js.headers.get('cache-control')).toContain('immutable');
      const again = await fetch(`${origin.url}${script}`, { headers: { 'if-none-match': js.headers.get('etag')! } });
      expect(again.status).toBe(304);
    }
    expect(b.errors).toEqual([]);
    // Only the answers the tests provoked: no session / wrong password (401), refused starts (409).
    for (const r of b.apiRejections) expect(r).toMatch(/status of (401|409)/);
  });
});
