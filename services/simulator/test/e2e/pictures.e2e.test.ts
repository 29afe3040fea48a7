// The simulator console's README pictures (docs/screenshots/simulator-*.png, `npm run screenshots`):
// lined up at KSFO on runway 28R, stopped, at a desktop's and a phone's width.
import { fileURLToPath } from 'node:url';
import {
  browserTestsEnabled,
  type E2EBrowser,
  freePort,
  mapIdle,
  openBrowser,
  renderedValues,
  type ServiceProcess,
  startService,
} from '@outpost/ui/testing';
import { PICTURE_DESKTOP, PICTURE_PHONE, PICTURE_TIME, picture } from '@outpost/ui/testing/pictures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const USER = 'pilot';
const PASSWORD = 'picture secret';

describe.skipIf(!browserTestsEnabled())('simulator console pictures', () => {
  let sim: ServiceProcess;
  let b: E2EBrowser;

  beforeAll(async () => {
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
        EFB_BROADCAST_ADDRESS: '127.255.255.255',
      },
      port,
    );
    b = await openBrowser();
  }, 30_000);

  afterAll(async () => {
    await b?.close();
    await sim?.stop();
  });

  it('lined up at KSFO on 28R, at desktop and phone width', async () => {
    for (const [name, viewport, scheme] of [
      ['simulator-desktop', PICTURE_DESKTOP, 'light'],
      ['simulator-phone', PICTURE_PHONE, 'dark'],
    ] as const) {
      const { context, page } = await b.newSession(viewport, scheme);
      await page.clock.setFixedTime(PICTURE_TIME);
      await page.goto(sim.url);
      await page.locator('input[name=username]').fill(USER);
      await page.locator('input[name=password]').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Operating mode' }).waitFor();
      const r = await page.request.post(`${sim.url}/api/position/runway`, {
        data: { airport: 'KSFO', runway: '28R' },
      });
      expect(r.status(), await r.text()).toBe(200);
      await expect.poll(() => page.getByTestId('selected-airport').textContent()).toContain('San Francisco');
      await expect.poll(() => page.getByTestId('conn').textContent()).toBe('live');
      // The picture is taken once the map has drawn KSFO's runways over the basemap.
      const host = page.getByRole('figure', { name: 'Simulator position' }).getByTestId('geo-map');
      await mapIdle(host);
      await expect
        .poll(async () =>
          (await renderedValues(host, 'map-runway')).filter((id) => id.startsWith('rwy-KSFO-')),
        )
        .toHaveLength(4);
      await mapIdle(host);
      await page.waitForLoadState('networkidle');
      await picture(page, name);
      await context.close();
    }
  }, 60_000);
});
