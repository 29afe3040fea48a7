import { AxeReport } from '@outpost/ui/testing/a11y';
import { browserTestsEnabled, DESKTOP, type E2EBrowser, openBrowser, PHONE } from '@outpost/ui/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, PASSWORD, type Stack, startStack } from './stack.js';

/** What shows once a page has its data (as in console.e2e.test.ts; the relay node answers over MQTT). */
const READY: Record<string, string> = {
  status: '[data-testid=gen-state]',
  history: '[data-testid=stats]',
  health: '[data-testid=feedback-status]',
  conditions: '[data-testid=quiet-hours]',
  settings: '[data-testid=fuel-usage]',
  schedules: '[data-testid=schedules] tbody tr',
  webhooks: '[data-testid=webhooks] tbody tr',
  relaynode: '[data-testid=node-system] dt',
  notifications: '[data-testid=channels] tbody tr',
};

/**
 * axe-core (WCAG 2.0 and 2.1, A and AA) over every page of the generator console in both themes: the
 * login form (empty and refused), each tab (with a webhook, a schedule and a notification channel in
 * their tables), and the status page idle, running and in failsafe (EPO).
 */
describe.skipIf(!browserTestsEnabled())('generator console accessibility (axe-core)', () => {
  let stack: Stack;
  let b: E2EBrowser;

  beforeAll(async () => {
    stack = await startStack();
    b = await openBrowser();
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await stack?.close();
  });

  const text = (page: Page, id: string) => page.getByTestId(id).textContent();

  it('finds no violation on any page, light or dark', async () => {
    const report = new AxeReport();
    const url = stack.controller.url;
    let token = '';
    let pageCount = 0;
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page } = await b.newSession(DESKTOP, scheme);
      await page.goto(url);
      await page.locator('input[name=username]').waitFor();
      await report.check(page, `${scheme} login`);
      // The controller allows a few /api/auth calls a minute: one refusal per theme, one real login.
      await page.locator('input[name=username]').fill(ADMIN);
      await page.locator('input[name=password]').fill('not the password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').waitFor();
      await report.check(page, `${scheme} login refused`);
      if (!token) {
        await page.locator('input[name=password]').fill(PASSWORD);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.getByRole('heading', { name: 'Control', exact: true }).waitFor();
        token =
          (await page.evaluate<string | null>("localStorage.getItem('outpost.controller.token')")) ?? '';
      }
      await context.close();
    }
    expect(token).not.toBe('');
    // Tables with rows (and their action buttons) rather than empty ones: a webhook, a schedule, a channel.
    const add = async (path: string, body: unknown) => {
      const r = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(r.status, `${path}: ${await r.text()}`).toBeLessThan(300);
    };
    await add('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'], enabled: true });
    await add('/api/schedules', {
      name: 'Weekly exercise',
      days_of_week: [1, 4],
      start_time: '06:00',
      duration_minutes: 30,
      enabled: true,
    });
    await add('/api/notifications/channels', {
      name: 'Ops hook',
      channel_type: 'webhook',
      config: { url: 'http://127.0.0.1:9/notify', headers: {}, method: 'POST' },
      enabled: true,
    });

    // Both themes at a desktop's width, and the dark one at a phone's (tabs and tables scroll sideways there).
    for (const [scheme, viewport, width] of [
      ['light', DESKTOP, 'desktop'],
      ['dark', DESKTOP, 'desktop'],
      ['dark', PHONE, 'phone'],
    ] as const) {
      const { context, page } = await b.newSession(viewport, scheme);
      await context.addInitScript(
        `localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`,
      );
      // Every tab the console offers, read from its own navigation, so a new page is checked too.
      await page.goto(url);
      const tabs = await page
        .locator('nav.tabs a')
        .evaluateAll((links) => links.map((a) => (a.getAttribute('href') ?? '').replace(/^#\//, '')));
      expect(tabs).toEqual(expect.arrayContaining(Object.keys(READY)));
      pageCount = tabs.length;
      for (const id of tabs) {
        expect(READY[id], `a ready selector for #/${id}`).toBeDefined();
        await page.goto(`${url}/#/${id}`);
        await page.locator('nav.tabs a[aria-current=page]').waitFor();
        await page.locator(READY[id]!).first().waitFor({ timeout: 15_000 });
        await page.waitForLoadState('networkidle');
        await report.check(page, `${scheme} ${width} #/${id}`);
      }
      // The status page's other faces: running (green), then the EPO failsafe (red banners).
      await page.goto(`${url}/#/status`);
      await page.locator(READY.status!).waitFor();
      await page.getByRole('button', { name: 'Arm', exact: true }).click();
      await expect.poll(() => text(page, 'armed')).toBe('armed');
      await expect.poll(() => text(page, 'node-link'), { timeout: 10_000 }).toBe('connected');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await expect.poll(() => text(page, 'gen-state')).toBe('Running');
      await report.check(page, `${scheme} ${width} #/status running`);
      await page.getByRole('button', { name: 'Stop', exact: true }).click();
      await expect.poll(() => text(page, 'gen-state')).toBe('Idle');
      await page.getByRole('button', { name: 'Disarm', exact: true }).click();
      await expect.poll(() => text(page, 'armed')).toBe('disarmed');
      await stack.setEpo(true);
      await expect.poll(() => text(page, 'epo-banner'), { timeout: 10_000 }).toContain('EPO engaged');
      await report.check(page, `${scheme} ${width} #/status EPO`);
      await stack.setEpo(false);
      await expect.poll(() => page.getByTestId('epo-banner').count(), { timeout: 10_000 }).toBe(0);
      await context.close();
    }
    expect(report.checked).toHaveLength(4 + 3 * (pageCount + 2));
    expect(report.failures, report.failures.join('\n\n')).toEqual([]);
  }, 240_000);
});
