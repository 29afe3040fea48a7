import { type RunningBroker, startBroker } from '@outpost/broker';
import { browserTestsEnabled, CHROMIUM, screenshot } from '@outpost/ui/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, startDashboard } from '../../src/app.js';
import { silentLogger, testConfig } from '../helpers.js';

/**
 * The API documents in a real browser, reached under a host name rather than localhost (Swagger UI
 * treats localhost specially): every request the pages make must go to the dashboard itself.
 * Anything else is recorded and refused, so nothing leaves the machine either way.
 */
const HOST = 'docs.outpost.test';
const COOP_ON_PLAIN_HTTP =
  /^The Cross-Origin-Opener-Policy header has been ignored, because the URL's origin was untrustworthy/;

describe.skipIf(!browserTestsEnabled())('API documents in Chromium', () => {
  let broker: RunningBroker;
  let dash: Dashboard;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
    dash = await startDashboard(testConfig({ mqttUrl: broker.url }), { logger: silentLogger });
    origin = `http://${HOST}:${dash.port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1, MAP * ~NOTFOUND`,
      ],
    });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await dash?.close();
    await broker?.close();
  });

  /** Opens a page, recording every request and refusing those to any other origin. */
  async function open(path: string): Promise<{ page: Page; elsewhere: string[]; errors: string[] }> {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const page = await context.newPage();
    const elsewhere: string[] = [];
    const errors: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:'))
        return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      // Chromium's note that a plain-HTTP origin other than localhost cannot use the security
      // header: about the test's address, not the page.
      if (msg.type() === 'error' && !COOP_ON_PLAIN_HTTP.test(msg.text())) errors.push(msg.text());
    });
    await page.goto(`${origin}${path}`);
    return { page, elsewhere, errors };
  }

  it('Swagger UI lists the operations with every request to the dashboard itself', async () => {
    const { page, elsewhere, errors } = await open('/api/docs');
    await page.getByText('/api/status').first().waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'dashboard-api-docs');
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 30_000);

  it('Redoc renders the reference with every request to the dashboard itself', async () => {
    const { page, elsewhere, errors } = await open('/api/redoc');
    await page.getByText('/api/status').first().waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'dashboard-api-redoc');
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 30_000);
});
