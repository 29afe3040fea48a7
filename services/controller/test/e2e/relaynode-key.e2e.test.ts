import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { browserTestsEnabled, type E2EBrowser, openBrowser, PHONE, screenshot } from '@outpost/ui/testing';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, type Stack, startStack } from './stack.js';

/** SHA-256 of the raw key, its first 16 bytes in hex pairs (what the node logs and the controller serves). */
const FINGERPRINT = /^[0-9a-f]{2}(:[0-9a-f]{2}){15}$/;

/** The fingerprint the relay node logged at start (`node_key_fingerprint`, one JSON line). */
function loggedFingerprint(output: string): string | null {
  for (const line of output.split('\n')) {
    if (!line.includes('node_key_fingerprint')) continue;
    try {
      const fp = (JSON.parse(line) as { node_key_fingerprint?: unknown }).node_key_fingerprint;
      if (typeof fp === 'string') return fp;
    } catch {
      // not a log line
    }
  }
  return null;
}

/**
 * The Status page's "Relay node key" card on real processes: it shows the fingerprint the relay node
 * logged, "Forget key" (behind an acknowledgment) empties the pin, and the node's next report pins the
 * same key again. A forged report then raises relay_node_report_unverified, whose banner leads to the card.
 */
describe.skipIf(!browserTestsEnabled())('relay node key in the console', () => {
  let stack: Stack;
  let url = '';
  let b: E2EBrowser;
  let token = '';

  beforeAll(async () => {
    stack = await startStack({}, { LOG_LEVEL: 'info' });
    url = stack.controller.url;
    b = await openBrowser();
    token = await adminToken(url);
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await stack?.close();
  });

  it('shows the logged fingerprint, forgets it on confirmation and pins it again', {
    timeout: 60_000,
  }, async () => {
    await expect.poll(() => loggedFingerprint(stack.node.output()), { timeout: 5000 }).toMatch(FINGERPRINT);
    const logged = loggedFingerprint(stack.node.output()) as string;

    const { context, page } = await b.newSession();
    await context.addInitScript(`localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`);
    page.setDefaultTimeout(15_000);
    await page.goto(`${url}/#/`);
    const card = page.getByRole('region', { name: 'Relay node key' });
    const shown = card.getByTestId('relaynode-key-fingerprint');
    await shown.waitFor();
    // Pinned at the node's first report, before or after the page loaded: the card's next read shows it.
    await expect.poll(async () => (await shown.textContent())?.trim(), { timeout: 15_000 }).toBe(logged);

    // No forgetting without the acknowledgment.
    const forget = card.getByRole('button', { name: 'Forget key' });
    expect(await forget.isDisabled()).toBe(true);
    await card.locator('input[name=forget_node_key]').check();
    await forget.click();
    await card
      .getByTestId('relaynode-key-unpinned')
      .filter({ hasText: /not pinned yet/i })
      .waitFor();
    expect(await card.getByTestId('relaynode-key-fingerprint').count()).toBe(0);
    // The controller really forgot it (it logs what it forgot), not just the page.
    await expect
      .poll(() => stack.controller.output(), { timeout: 5000 })
      .toContain('relay node key forgotten');
    expect(stack.controller.output()).toContain(logged);
    await screenshot(page, 'relaynode-key-forgotten');

    // The node republishes its signed state every heartbeat: the same key is pinned again.
    await shown.waitFor({ timeout: 20_000 });
    expect((await shown.textContent())?.trim()).toBe(logged);
    const api = (await (
      await fetch(`${url}/api/relaynode/key`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { pinned: boolean; fingerprint: string | null };
    expect(api).toMatchObject({ pinned: true, fingerprint: logged });
    await screenshot(page, 'relaynode-key-pinned-again');
    expect(b.errors).toEqual([]);
  });

  it('the unverified-report banner leads to the key card', { timeout: 60_000 }, async () => {
    // The node's own signed state with the signature spoiled, as anyone on its broker account could send.
    const topic = `${DEFAULT_PREFIX}/relaynode/main/state`;
    const bus = await mqtt.connectAsync(stack.broker.url);
    try {
      const genuine = await new Promise<Record<string, unknown>>((resolve) => {
        bus.on('message', (t, p) => {
          if (t === topic) resolve(JSON.parse(p.toString()) as Record<string, unknown>);
        });
        void bus.subscribeAsync(topic);
      });
      expect(typeof genuine.report_sig).toBe('string');
      await bus.unsubscribeAsync(topic);
      const sig = genuine.report_sig as string;
      const spoiled = `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
      await bus.publishAsync(topic, JSON.stringify({ ...genuine, report_sig: spoiled }), { qos: 1 });
    } finally {
      await bus.endAsync(true);
    }

    // On a phone the cards stack, so the key card starts below the fold.
    const { context, page } = await b.newSession(PHONE);
    await context.addInitScript(`localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`);
    page.setDefaultTimeout(15_000);
    await page.goto(`${url}/#/`);
    const banner = page.getByTestId('status-health-alarm').filter({ hasText: 'failed verification' });
    await banner.waitFor();
    const card = page.getByRole('region', { name: 'Relay node key' });
    const cardTop = () =>
      card.evaluate(
        (el) => el.getBoundingClientRect().top / (el.ownerDocument.defaultView?.innerHeight ?? 1),
      );
    expect(await cardTop()).toBeGreaterThan(1);
    await banner.getByRole('link', { name: 'Relay node key' }).click();
    await expect.poll(cardTop).toBeGreaterThanOrEqual(0);
    await expect.poll(cardTop).toBeLessThan(0.5);
    // Still the Status page, and the key is still the node's.
    expect(new URL(page.url()).hash).toBe('#/');
    expect(await card.getByTestId('relaynode-key-fingerprint').textContent()).toMatch(FINGERPRINT);
    await screenshot(page, 'relaynode-key-unverified-banner');
  });
});
