import { browserTestsEnabled, type E2EBrowser, openBrowser } from '@outpost/ui/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, type Stack, startStack } from './stack.js';

/**
 * A start pressed in the console while the MQTT broker is down is recorded, and the console says the
 * relay is not yet confirmed instead of a plain "Generator started". A stack of its own: the broker
 * does not come back.
 */
describe.skipIf(!browserTestsEnabled())('console start while the broker is down', () => {
  let stack: Stack;
  let b: E2EBrowser;
  let token = '';
  const api = (path: string, method = 'GET') =>
    fetch(`${stack.controller.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    stack = await startStack();
    b = await openBrowser();
    token = await adminToken(stack.controller.url);
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await stack?.close();
  });

  it('says the start is recorded but the relay not yet confirmed, and the relay stays OFF meanwhile', async () => {
    expect((await api('/api/generator/arm', 'POST')).status).toBe(200);
    await stack.broker.close();

    const { context, page } = await b.newSession();
    await context.addInitScript(`localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`);
    page.setDefaultTimeout(8_000);
    await page.goto(stack.controller.url);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    const feedback = page.getByTestId('control-feedback');
    await feedback.filter({ hasText: 'relay not yet confirmed' }).waitFor();
    expect(await feedback.textContent()).not.toContain('Generator started');

    const history = (await (await api('/api/generator/history?limit=1')).json()) as { end_time: unknown }[];
    expect(history).toHaveLength(1);
    // No RELAYNODE_URL on this stack: the ON waits for the broker's return, and nothing turns the relay on.
    expect(await feedback.textContent()).toContain(
      'The first heartbeat after it reconnects turns the relay ON',
    );
    await new Promise((r) => setTimeout(r, 500));
    expect((await stack.nodeStatus()).relay_on).toBe(false);
    await context.close();
  }, 30_000);
});
