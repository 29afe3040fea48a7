import { browserTestsEnabled, type E2EBrowser, openBrowser } from '@outpost/ui/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, adminToken, PASSWORD, type Stack, startStack } from './stack.js';

/**
 * The console's Settings page on a stack of its own: a password change ends every session, and the
 * auth rate limit (5 calls a minute per client) would not leave room for it beside the main console test.
 */
describe.skipIf(!browserTestsEnabled())('console settings in Chromium', () => {
  let stack: Stack;
  let origin: { url: string };
  let b: E2EBrowser;
  let token = '';

  beforeAll(async () => {
    stack = await startStack();
    origin = { url: stack.controller.url };
    b = await openBrowser();
    token = await adminToken(origin.url);
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await stack?.close();
  });

  async function signedIn(): Promise<{ context: { close(): Promise<void> }; page: Page }> {
    const s = await b.newSession();
    await s.context.addInitScript(
      `localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`,
    );
    s.page.setDefaultTimeout(8_000);
    await s.page.goto(origin.url);
    await s.page.getByRole('heading', { name: 'Control', exact: true }).waitFor();
    return s;
  }

  it('saves the start-up arming policy, and a password change ends the session until the new one is used', async () => {
    const { context, page } = await signedIn();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.locator('select[name=boot_arming_policy]').selectOption('preserve_state');
    await page.getByRole('button', { name: 'Save start-up arming' }).click();
    await page.getByTestId('startup-feedback').filter({ hasText: 'Start-up arming saved' }).waitFor();
    const saved = await fetch(`${origin.url}/api/settings`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await saved.json()) as { boot_arming_policy: string }).boot_arming_policy).toBe(
      'preserve_state',
    );

    await page.locator('input[name=current_password]').fill('not the password');
    await page.locator('input[name=new_password]').fill('a brand new console password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page
      .getByTestId('password-feedback')
      .filter({ hasText: 'current_password: does not match' })
      .waitFor();
    await page.locator('input[name=current_password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed; log in again with the new one').waitFor();
    const old = await fetch(`${origin.url}/api/generator/state`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(old.status).toBe(401);
    await page.locator('input[name=username]').fill(ADMIN);
    await page.locator('input[name=password]').fill('a brand new console password');
    await page.getByRole('button', { name: 'Log in' }).click();
    // Back where it was, signed in with the new password.
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    await page.getByRole('button', { name: 'Save start-up arming' }).waitFor();
    await context.close();
  }, 30_000);

  it('logged no page errors beyond the refusals it provoked', () => {
    expect(b.errors).toEqual([]);
    for (const r of b.apiRejections) expect(r).toMatch(/status of (401|422)/);
  });
});
