import { browserTestsEnabled, type E2EBrowser, openBrowser } from '@outpost/ui/testing';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gensetReport, staleGensetReport } from '../helpers/genset-fixtures.js';
import { adminToken, type Stack, startStack } from './stack.js';

/**
 * The console's Health page on real processes: running feedback settings, the fail-to-start alarm
 * as the controller raises it, the engine-hour meter and the maintenance list.
 */
describe.skipIf(!browserTestsEnabled())('console Health page in Chromium', () => {
  let stack: Stack;
  let url = '';
  let b: E2EBrowser;
  let token = '';

  beforeAll(async () => {
    stack = await startStack({ START_CONFIRM_SECONDS: '5' });
    url = stack.controller.url;
    b = await openBrowser();
    token = await adminToken(url);
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await stack?.close();
  });

  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('shows the feedback, raises the fail-to-start alarm, sets the hour meter and marks service done', async () => {
    const { context, page } = await b.newSession();
    await context.addInitScript(`localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`);
    page.setDefaultTimeout(10_000);
    await page.goto(`${url}/#/health`);
    await page.getByTestId('feedback-status').filter({ hasText: 'no running feedback' }).waitFor();
    await page.getByTestId('maintenance').getByText('Oil and oil filter').waitFor();
    await page.getByText('No exercise run yet.').waitFor();

    await page.locator('select[name=running_feedback_source]').selectOption('api');
    await page.getByRole('button', { name: 'Save feedback settings' }).click();
    await page.getByTestId('feedback-settings-note').filter({ hasText: 'saved' }).waitFor();
    await page.getByTestId('feedback-status').filter({ hasText: 'no reading yet' }).waitFor();

    // A start nothing confirms: after START_CONFIRM_SECONDS the relay drops and the page says why.
    expect((await call('POST', '/api/generator/arm')).status).toBe(200);
    expect((await call('POST', '/api/generator/start', {})).status).toBe(200);
    await page.getByTestId('health-alarm').filter({ hasText: 'Fail to start' }).waitFor({ timeout: 15_000 });
    expect((await stack.nodeStatus()).relay_on).toBe(false);
    // The Status page says so too, and leads back here.
    await page.getByRole('link', { name: 'Status' }).click();
    await page.getByTestId('status-health-alarm').filter({ hasText: 'failed to start' }).waitFor();
    await page.getByTestId('status-health-alarm').getByRole('link', { name: 'Health' }).click();

    await page.locator('input[name=engine_hours]').fill('150');
    await page.getByRole('button', { name: 'Set hour meter' }).click();
    await page.getByTestId('engine-hours').filter({ hasText: '150.0 h' }).waitFor();
    const oil = page.getByTestId('maintenance').locator('tr', { hasText: 'Oil and oil filter' });
    // The list follows the meter: oil (100 h) is due now, the air filter (200 h) is not.
    await oil.getByTestId('maintenance-status').filter({ hasText: /^due$/ }).waitFor();
    const air = page.getByTestId('maintenance').locator('tr', { hasText: 'Air filter' });
    expect(await air.getByTestId('maintenance-status').textContent()).toBe('ok');
    await oil.getByRole('button', { name: 'Done' }).click();
    await page
      .getByTestId('maintenance-feedback')
      .filter({ hasText: 'Oil and oil filter marked done' })
      .waitFor();
    await oil.getByTestId('maintenance-status').filter({ hasText: 'ok' }).waitFor();
    const items = (await (await call('GET', '/api/maintenance/items')).json()) as {
      name: string;
      history: unknown[];
    }[];
    expect(items.find((i) => i.name === 'Oil and oil filter')?.history).toHaveLength(1);
    await context.close();
  }, 60_000);

  it("shows the generator's controller: its mode warning, gauges and alarms, and unknown while stale", async () => {
    const { context, page } = await b.newSession();
    await context.addInitScript(`localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`);
    page.setDefaultTimeout(10_000);
    await page.goto(`${url}/#/health`);
    await page.getByTestId('feedback-status').waitFor();
    // No report from the relay node yet: no card.
    expect(await page.getByTestId('genset-mode').count()).toBe(0);
    // Stands in for the relay node's genset reader on the stack's broker.
    const reader = await mqtt.connectAsync(stack.broker.url, { clientId: `genset-e2e-${process.pid}` });
    const publish = (state: unknown) =>
      reader.publishAsync('outpost/relaynode/main/genset', JSON.stringify(state), { qos: 1, retain: true });
    try {
      const base = gensetReport();
      await publish(
        gensetReport({
          mode: 'manual',
          instruments: { ...base.instruments, oil_pressure_kpa: 310, fuel_level_percent: 64 },
          alarms: { level: 'warning', active: [{ index: 9, name: 'low_fuel_level', level: 'warning' }] },
        }),
      );
      await page.getByTestId('genset-mode').filter({ hasText: 'Manual' }).waitFor();
      await page.getByTestId('genset-mode-warning').filter({ hasText: 'not Auto' }).waitFor();
      expect(await page.getByTestId('genset-oil').textContent()).toBe('310 kPa');
      expect(await page.getByTestId('genset-fuel').textContent()).toBe('64 %');
      await page.getByTestId('genset-alarms').filter({ hasText: 'low fuel level: warning' }).waitFor();
      // The Status page warns too, and leads here.
      await page.getByRole('link', { name: 'Status' }).click();
      await page.getByTestId('status-genset-warning').filter({ hasText: 'Manual mode' }).waitFor();
      await page.getByTestId('status-genset-warning').getByRole('link', { name: 'Health' }).click();
      await page.getByTestId('genset-mode').filter({ hasText: 'Manual' }).waitFor();

      await publish(staleGensetReport());
      await page.getByTestId('genset-stale').waitFor();
      await page.getByTestId('genset-mode').filter({ hasText: 'unknown' }).waitFor();
      expect(await page.getByTestId('genset-oil').textContent()).toBe('—');
      expect(await page.getByTestId('genset-mode-warning').count()).toBe(0);
    } finally {
      await reader.publishAsync('outpost/relaynode/main/genset', '', { qos: 1, retain: true });
      await reader.endAsync();
      await context.close();
    }
  }, 60_000);

  it('logged no page errors', () => {
    expect(b.errors).toEqual([]);
  });
});
