import { browserTestsEnabled, type E2EBrowser, openBrowser } from '@outpost/ui/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, type Stack, startStack } from './stack.js';

/** The console's Conditions page: live values, a pending start's countdown, the chart with thresholds. */
describe.skipIf(!browserTestsEnabled())('console start conditions in Chromium', () => {
  let stack: Stack;
  let url = '';
  let b: E2EBrowser;
  let token = '';
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    stack = await startStack();
    url = stack.controller.url;
    b = await openBrowser();
    token = await adminToken(url);
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await stack?.close();
  });

  it('shows the SoC, its start countdown, and the chart of the readings between the thresholds', async () => {
    const put = await call('PUT', '/api/conditions/config', {
      conditions: {
        soc: {
          enabled: true,
          start_value: 30,
          start_delay_seconds: 600,
          stop_value: 85,
          stop_delay_seconds: 60,
        },
      },
      sources: { soc: { type: 'rest', stale_after_seconds: 3600 } },
    });
    expect(put.status).toBe(200);
    for (const value of [62, 45]) {
      expect((await call('PUT', '/api/conditions/sources/soc/value', { value })).status).toBe(200);
    }
    expect((await call('PUT', '/api/conditions/sources/soc/value', { value: 27.5 })).status).toBe(200);

    const s = await b.newSession();
    await s.context.addInitScript(
      `localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`,
    );
    const page = s.page;
    page.setDefaultTimeout(8_000);
    await page.goto(`${url}/#/conditions`);
    await page.getByTestId('condition-soc').filter({ hasText: '27.5 %' }).waitFor();
    await expect
      .poll(() => page.getByTestId('countdown-soc').textContent())
      .toMatch(/^starts in (9|10):\d\d$/);
    await page.getByTestId('source-soc').filter({ hasText: 'ok' }).waitFor();
    const chart = page.getByTestId('condition-chart-soc');
    // The readings came within a second, so the line is (nearly) vertical: attached, not "visible".
    await chart.getByTestId('series').waitFor({ state: 'attached' });
    expect(await chart.getByTestId('threshold-start').count()).toBe(1);
    expect(await chart.getByTestId('threshold-stop').count()).toBe(1);
    // The start line lies below the stop line, and the newest reading below the start line.
    const y = async (id: string) => Number(await chart.getByTestId(id).getAttribute('y1'));
    expect(await y('threshold-start')).toBeGreaterThan(await y('threshold-stop'));
    const d = (await chart.getByTestId('series').getAttribute('d')) ?? '';
    const lastY = Number(d.split(',').at(-1));
    expect(lastY).toBeGreaterThan(await y('threshold-start'));
    await chart.getByText('start at 30 %, stop at 85 %').waitFor();
    await s.context.close();
  }, 30_000);

  it('a condition run shows in the history with the values that started and stopped it', async () => {
    await call('POST', '/api/generator/arm');
    const put = await call('PUT', '/api/conditions/config', {
      conditions: { soc: { enabled: true, start_value: 30, stop_value: 85 } },
      // Another source than the first test's: its last reading (27.5) is not carried over.
      sources: { soc: { type: 'rest', stale_after_seconds: 1800 } },
    });
    expect(put.status).toBe(200);
    await call('PUT', '/api/conditions/sources/soc/value', { value: 21 });
    const state = async () =>
      (await (await call('GET', '/api/generator/state')).json()) as { running: boolean; trigger: string };
    await expect.poll(state).toMatchObject({ running: true, trigger: 'soc' });
    await call('PUT', '/api/conditions/sources/soc/value', { value: 86.5 });
    await expect.poll(async () => (await state()).running).toBe(false);

    const s = await b.newSession();
    await s.context.addInitScript(
      `localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`,
    );
    s.page.setDefaultTimeout(8_000);
    await s.page.goto(`${url}/#/history`);
    const row = s.page.getByRole('row').filter({ hasText: 'soc at 21' });
    await row.filter({ hasText: 'soc at 86.5' }).waitFor();
    await s.context.close();
  }, 30_000);

  it('logged no page errors', () => {
    expect(b.errors).toEqual([]);
    expect(b.apiRejections).toEqual([]);
  });
});
