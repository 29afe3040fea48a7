// The generator console's README pictures (docs/screenshots/controller-*.png, `npm run screenshots`):
// its main page for a site whose relay node is connected, armed and idle, at a desktop's and a phone's width.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserTestsEnabled, type E2EBrowser, openBrowser } from '@outpost/ui/testing';
import { PICTURE_DESKTOP, PICTURE_PHONE, PICTURE_TIME, picture } from '@outpost/ui/testing/pictures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, PASSWORD, type Stack, startStack } from './stack.js';

/**
 * The relay node's report-signing key, fixed (an Ed25519 PKCS#8 key from a constant seed) so the
 * status page's "Pinned fingerprint" reads the same in every take; a node makes its own otherwise.
 */
const NODE_REPORT_KEY = Buffer.concat([
  Buffer.from('302e020100300506032b657004220420', 'hex'),
  createHash('sha256').update('outpost console pictures: relay node report key').digest(),
]).toString('base64url');

describe.skipIf(!browserTestsEnabled())('generator console pictures', () => {
  let stack: Stack;
  let b: E2EBrowser;
  const nodeData = mkdtempSync(join(tmpdir(), 'controller-pictures-node-'));

  beforeAll(async () => {
    mkdirSync(join(nodeData, 'relay-node'), { mode: 0o700 });
    writeFileSync(join(nodeData, 'relay-node', 'report-key'), `${NODE_REPORT_KEY}\n`, { mode: 0o600 });
    stack = await startStack({}, { DATA_DIR: nodeData });
    b = await openBrowser();
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await stack?.close();
    rmSync(nodeData, { recursive: true, force: true });
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
