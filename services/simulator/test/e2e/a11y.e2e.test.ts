import { createSocket, type Socket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import { AxeReport } from '@outpost/ui/testing/a11y';
import {
  browserTestsEnabled,
  DESKTOP,
  type E2EBrowser,
  freePort,
  openBrowser,
  PHONE,
  type ServiceProcess,
  startService,
} from '@outpost/ui/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const USER = 'pilot';
const PASSWORD = 'e2e secret';
const MODES = ['standalone', 'sender', 'receiver', 'rebroadcaster'] as const;

/**
 * axe-core (WCAG 2.0 and 2.1, A and AA) over every view of the console in both themes: the login form,
 * refused and empty, and the console in each operating mode (each shows other network fields), lined
 * up at an airport (the runway picker), with airport search results, a flight plan planned and flown,
 * a start refused (its messages) and running (the NMEA log).
 */
describe.skipIf(!browserTestsEnabled())('simulator console accessibility (axe-core)', () => {
  let sim: ServiceProcess;
  let b: E2EBrowser;
  let efb: Socket;

  beforeAll(async () => {
    // Where the running console's EFB output goes: a socket of this test's, on loopback.
    efb = createSocket('udp4');
    await new Promise<void>((r) => efb.bind(0, '127.0.0.1', () => r()));
    const port = await freePort();
    sim = await startService(
      MAIN,
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        LISTEN_HOST: '127.0.0.1',
        USERNAME: USER,
        PASSWORD,
        BYPASS_AUTH: 'false',
        EFB_PORT: String(efb.address().port),
        EFB_BROADCAST_ADDRESS: '127.255.255.255',
      },
      port,
    );
    b = await openBrowser();
  }, 30_000);

  afterAll(async () => {
    await b?.close();
    await sim?.stop();
    efb?.close();
  });

  async function post(page: Page, path: string, data: unknown): Promise<void> {
    const r = await page.request.post(`${sim.url}${path}`, { data });
    expect(r.status(), `${path}: ${await r.text()}`).toBeLessThan(300);
  }

  it('finds no violation on any view, light or dark', async () => {
    const report = new AxeReport();
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page } = await b.newSession(DESKTOP, scheme);
      await page.goto(sim.url);
      await page.locator('input[name=username]').waitFor();
      await report.check(page, `${scheme} login`);
      await page.locator('input[name=username]').fill(USER);
      await page.locator('input[name=password]').fill('wrong');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').waitFor();
      await report.check(page, `${scheme} login refused`);
      await page.locator('input[name=password]').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Operating mode' }).waitFor();
      await expect.poll(() => page.getByTestId('conn').textContent()).toBe('live');
      for (const mode of MODES) {
        await post(page, '/api/config/modes', Object.fromEntries(MODES.map((m) => [m, m === mode])));
        await page.locator(`input[name=mode][value=${mode}]:checked`).waitFor();
        await report.check(page, `${scheme} console, ${mode}`);
      }
      await post(page, '/api/config/modes', {
        standalone: true,
        sender: false,
        receiver: false,
        rebroadcaster: false,
      });
      await post(page, '/api/position/runway', { airport: 'KSFO', runway: '28R' });
      await expect.poll(() => page.getByTestId('selected-airport').textContent()).toContain('San Francisco');
      await report.check(page, `${scheme} console, lined up at KSFO 28R`);
      await page.locator('input[name=airport-search]').fill('Oakland');
      await page.getByRole('button', { name: /KOAK/ }).waitFor();
      await report.check(page, `${scheme} console, airport search results`);
      await page.locator('input[name=airport-search]').fill('');
      // A flight plan from KSFO 28R to KOAK: its list, then flying it.
      const search = page.locator('input[name=route-airport-search]');
      const found = page.getByRole('list', { name: 'Route airports found' });
      await search.fill('KSFO');
      await found.getByRole('button', { name: /KSFO/ }).click();
      await page.locator('select[name=route-start-runway]').selectOption('28R');
      await search.fill('KOAK');
      await found.getByRole('button', { name: /KOAK/ }).click();
      await page.getByRole('list', { name: 'Route', exact: true }).locator('li').nth(1).waitFor();
      await report.check(page, `${scheme} console, flight plan`);
      await page.getByRole('button', { name: 'Fly this route' }).click();
      await page.getByTestId('flight-progress').waitFor();
      await report.check(page, `${scheme} console, flying the plan`);
      await page.getByRole('button', { name: 'Clear flight plan' }).click();
      await expect.poll(() => page.getByTestId('flight-progress').count()).toBe(0);
      // Start with no output chosen: the console lists what is missing.
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await page.getByTestId('start-messages').locator('li').first().waitFor();
      await report.check(page, `${scheme} console, start refused`);
      await page.locator('input[name=efb_enabled]').check();
      await page.locator('input[name=efb_ip_enabled]').check();
      await page.locator('input[name=efb_sim_name]').fill('A11y Sim');
      await page.locator('input[name=efb_target_ips]').fill('127.0.0.1');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await expect.poll(() => page.getByTestId('run-state').textContent(), { timeout: 5000 }).toBe('running');
      await page.getByTestId('nmea-log').getByText('$GP').first().waitFor({ timeout: 5000 });
      await report.check(page, `${scheme} console, running`);
      await page.getByRole('button', { name: 'Stop', exact: true }).click();
      await expect.poll(() => page.getByTestId('run-state').textContent()).toBe('stopped');
      await page.locator('input[name=efb_enabled]').uncheck();
      await context.close();
    }
    // At a phone's width (one column; wide content scrolls inside its box), dark: login, then the console.
    {
      const { context, page } = await b.newSession(PHONE, 'dark');
      await page.goto(sim.url);
      await page.locator('input[name=username]').waitFor();
      await report.check(page, 'dark phone login');
      await page.locator('input[name=username]').fill(USER);
      await page.locator('input[name=password]').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Operating mode' }).waitFor();
      await post(page, '/api/position/runway', { airport: 'KSFO', runway: '28R' });
      await expect.poll(() => page.getByTestId('selected-airport').textContent()).toContain('San Francisco');
      await report.check(page, 'dark phone console, lined up at KSFO 28R');
      await context.close();
    }
    expect(report.checked).toHaveLength(26);
    expect(report.failures, report.failures.join('\n\n')).toEqual([]);
  }, 120_000);
});
