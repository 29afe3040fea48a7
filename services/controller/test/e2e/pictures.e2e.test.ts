// The generator console's README pictures (docs/screenshots/controller-*.png, `npm run screenshots`):
// its main page for a site whose relay node is connected, armed and idle, at a desktop's and a phone's width.
import { browserTestsEnabled, type E2EBrowser, openBrowser } from '@outpost/ui/testing';
import { PICTURE_DESKTOP, PICTURE_PHONE, PICTURE_TIME, picture } from '@outpost/ui/testing/pictures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, PASSWORD, type Stack, startStack } from './stack.js';

describe.skipIf(!browserTestsEnabled())('generator console pictures', () => {
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

  it('the status page of a site with its relay node connected, armed and idle', async () => {
    let token = '';
    for (const [name, viewport, scheme] of [
      ['controller-desktop', PICTURE_DESKTOP, 'light'],
      ['controller-phone', PICTURE_PHONE, 'dark'],
    ] as const) {
      const { context, page } = await b.newSession(viewport, scheme);
      await page.clock.setFixedTime(PICTURE_TIME);
      if (token) {
        await context.addInitScript(
          `localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`,
        );
        await page.goto(stack.controller.url);
      } else {
        await page.goto(stack.controller.url);
        await page.locator('input[name=username]').fill(ADMIN);
        await page.locator('input[name=password]').fill(PASSWORD);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.getByRole('heading', { name: 'Control', exact: true }).waitFor();
        token =
          (await page.evaluate<string | null>("localStorage.getItem('outpost.controller.token')")) ?? '';
        // Armed through the API, so no "Relay armed" note from a click stays in the picture.
        const armed = await fetch(`${stack.controller.url}/api/generator/arm`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
        expect(armed.status, await armed.text()).toBe(200);
      }
      const text = (id: string) => page.getByTestId(id).textContent();
      await expect.poll(() => text('armed')).toBe('armed');
      await expect.poll(() => text('node-link'), { timeout: 10_000 }).toBe('connected');
      await expect.poll(() => text('gen-state')).toBe('Idle');
      await page.waitForLoadState('networkidle');
      await picture(page, name);
      await context.close();
    }
  }, 60_000);
});
