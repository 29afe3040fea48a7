import { browserTestsEnabled, DESKTOP, type E2EBrowser, openBrowser, screenshot } from '@outpost/ui/testing';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from './receiver.js';
import { adminToken, type Stack, startStack } from './stack.js';

/**
 * A webhook and a notification channel aimed at a receiver on this host, stored while
 * OUTBOUND_ALLOWED_NETWORKS listed loopback. The administrator then narrows it to the LAN and restarts
 * the controller and the notifier. The next generator start is delivered to neither: both services
 * record the delivery as refused, and the console's delivery tables say that nothing was sent, which
 * address was refused, and what to change. The receiver gets nothing.
 */
/** The cell's text wraps inside its table's box: nothing of it is past the edge, to be scrolled to. */
const fitsInItsTable = (cell: Locator) =>
  cell.evaluate((td) => {
    const wrap = td.closest('.table-wrap');
    return wrap !== null && wrap.scrollWidth <= wrap.clientWidth;
  });

describe.skipIf(!browserTestsEnabled())('a delivery refused by the outbound policy, in the console', () => {
  let stack: Stack;
  let b: E2EBrowser;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let token = '';

  beforeAll(async () => {
    stack = await startStack();
    hook = await startReceiver();
    b = await openBrowser();
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await stack?.close();
    await hook?.close();
  });

  const call = async <T = { id: number; detail?: string }>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.controller.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  it('records the refused webhook and notification deliveries and shows why, with nothing sent', async () => {
    token = await adminToken(stack.controller.url);
    const webhook = await call('POST', '/api/webhooks', { url: `${hook.url}/generator`, events: ['*'] });
    expect(webhook.status).toBe(201);
    const channel = await call('POST', '/api/notifications/channels', {
      name: 'Node-RED on this host',
      channel_type: 'webhook',
      config: { url: `${hook.url}/notify`, headers: {}, method: 'POST' },
      enabled: true,
    });
    expect(channel.status).toBe(201);

    // The administrator opens the LAN only, and restarts both services.
    const lanOnly = { OUTBOUND_ALLOWED_NETWORKS: '192.168.1.0/24' };
    await stack.restart('notifier', lanOnly);
    await stack.restart('controller', lanOnly);
    token = await adminToken(stack.controller.url);
    // Refused where it can be: a test of either target is a 422 naming the address and the variable.
    const tested = await call('POST', '/api/webhooks/test');
    expect([tested.status, tested.body.detail]).toEqual([
      422,
      `webhook ${webhook.body.id} (${hook.url}/generator): loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)`,
    ]);

    expect((await call('POST', '/api/generator/arm', {})).status).toBe(200);
    expect((await call('POST', '/api/generator/start', { notes: 'refused delivery' })).status).toBe(200);
    await expect
      .poll(
        async () => (await call<unknown[]>('GET', `/api/webhooks/${webhook.body.id}/deliveries`)).body[0],
        {
          timeout: 10_000,
        },
      )
      .toMatchObject({
        event: 'generator.started.manual',
        status: 'refused',
        attempts: 1,
        last_error: 'loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)',
      });
    await expect
      .poll(async () => (await call<unknown[]>('GET', '/api/notifications/history?limit=5')).body, {
        timeout: 10_000,
      })
      .toContainEqual(
        expect.objectContaining({
          channel_id: channel.body.id,
          status: 'failed',
          error: 'webhook: loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)',
        }),
      );
    expect((await call('POST', '/api/generator/stop', {})).status).toBe(200);

    const { context, page } = await b.newSession(DESKTOP);
    await context.addInitScript(`localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`);
    await page.goto(`${stack.controller.url}/#/webhooks`);
    const row = page
      .getByTestId('webhooks')
      .locator('tbody tr')
      .filter({ hasText: `${hook.url}/generator` });
    await row.getByRole('button', { name: 'Deliveries' }).click();
    const started = page
      .getByTestId('webhook-deliveries')
      .locator('tbody tr')
      .filter({ hasText: 'generator.started.manual' });
    await started.waitFor();
    const cells = started.locator('td');
    expect(await cells.nth(2).textContent()).toBe('refused');
    expect(await cells.nth(4).textContent()).toBe(
      'Not sent: 127.0.0.1 is a loopback address, outside the networks the controller may reach. ' +
        'Add 127.0.0.1 (or its network) to OUTBOUND_ALLOWED_NETWORKS of the controller and restart it, ' +
        'or point this at another address.',
    );
    // Shown as a problem, not as a routine line, and all of it on screen.
    expect(await cells.nth(2).getAttribute('class')).toBe('bad');
    expect(await cells.nth(4).getAttribute('class')).toBe('reason bad');
    expect(await fitsInItsTable(cells.nth(4))).toBe(true);
    await screenshot(page, 'controller-webhook-delivery-refused-desktop');

    await page.getByRole('link', { name: 'Notifications' }).click();
    const history = page
      .getByTestId('notification-history')
      .locator('tbody tr')
      .filter({ hasText: 'Node-RED on this host' })
      .first();
    await history.waitFor();
    const status = history.locator('td').last();
    expect(await status.textContent()).toBe(
      'refused – Not sent: 127.0.0.1 is a loopback address, outside the networks the notifier may reach. ' +
        'Add 127.0.0.1 (or its network) to OUTBOUND_ALLOWED_NETWORKS of the notifier and restart it, ' +
        'or point this at another address.',
    );
    expect(await status.getAttribute('class')).toBe('reason bad');
    expect(await fitsInItsTable(status)).toBe(true);
    await screenshot(page, 'controller-notification-refused-desktop');
    await context.close();

    // Nothing reached the receiver, and the console logged no errors of its own.
    expect(hook.received).toEqual([]);
    expect(b.errors).toEqual([]);
  }, 60_000);
});
