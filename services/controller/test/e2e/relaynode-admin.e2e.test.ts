import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningBroker, startBroker } from '@outpost/broker';
import {
  browserTestsEnabled,
  DESKTOP,
  type E2EBrowser,
  freePort,
  openBrowser,
  PHONE,
  type ServiceProcess,
  screenshot,
  startService,
} from '@outpost/ui/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LogindPower,
  SECRET,
  startDbusMock,
  startTestNode,
  SystemBus,
  TEST_LEASE_KEYS as LEASE_KEYS,
  wifiDevice,
} from '@outpost/relay-node/testing';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';

/**
 * The console's relay node page in Chromium against the real chain: the built controller (a process)
 * → MQTT → a relay node whose system bus is python3-dbusmock's NetworkManager and logind.
 */

const CONTROLLER_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const ADMIN = 'installer';
const ADMIN_PASSWORD = 'e2e relay node admin password';
const WIFI_PASSWORD = 'hay-loft-passphrase-93';
const NM = 'org.freedesktop.NetworkManager';
const NM_PATH = '/org/freedesktop/NetworkManager';
const LOGIND = 'org.freedesktop.login1';
const LOGIND_PATH = '/org/freedesktop/login1';
const MOCK = 'org.freedesktop.DBus.Mock';

describe.skipIf(!browserTestsEnabled())('relay node administration in the console (Chromium)', () => {
  let mock: Awaited<ReturnType<typeof startDbusMock>>;
  let broker: RunningBroker;
  let powerBus: SystemBus;
  let node: Awaited<ReturnType<typeof startTestNode>>;
  let tdb: TestDatabase;
  let controller: ServiceProcess;
  let b: E2EBrowser;
  let token = '';
  const dir = mkdtempSync(join(tmpdir(), 'controller-e2e-wifi-'));

  const savedProfiles = () => mock.call(NM, `${NM_PATH}/Settings`, `${NM}.Settings.ListConnections`);
  const logindCalls = () => mock.call(LOGIND, LOGIND_PATH, `${MOCK}.GetCalls`);
  const rest = async (path: string, body?: unknown) => {
    const res = await fetch(`${controller.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    mock = await startDbusMock(['networkmanager', 'logind']);
    await wifiDevice(mock, [
      {
        name: 'ap1',
        ssid: 'ShedWifi',
        bssid: '00:11:22:33:44:55',
        frequencyMhz: 2412,
        strength: 80,
        flags: '0x100',
      },
      {
        name: 'ap2',
        ssid: 'OpenCafe',
        bssid: '00:11:22:33:44:77',
        frequencyMhz: 5180,
        strength: 35,
        flags: '0',
      },
    ]);
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
    powerBus = new SystemBus(mock.address);
    node = await startTestNode({
      systemBusAddress: mock.address,
      power: new LogindPower(powerBus),
      config: { mqtt: { url: broker.url, username: undefined, password: undefined, prefix: 'outpost' } },
    });
    tdb = await testDatabase();
    const port = await freePort();
    controller = await startService(
      CONTROLLER_MAIN,
      {
        JWT_SECRET: 'e2e-relaynode-admin-jwt-secret-0123456789',
        ADMIN_USERNAME: ADMIN,
        ADMIN_PASSWORD,
        MQTT_URL: broker.url,
        RELAYNODE_API_SECRET: SECRET,
        LEASE_SIGNING_KEY: LEASE_KEYS.privateKey,
        GPIO_MODE: 'mock',
        HOA_BOOT_DELAY_SECONDS: '0',
        HEARTBEAT_INTERVAL_SECONDS: '1',
        HOST: '127.0.0.1',
        CONTROLLER_PORT: String(port),
        DATA_DIR: join(dir, 'controller'),
        DATABASE_URL: tdb.url,
      },
      port,
    );
    const login = await fetch(`${controller.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN, password: ADMIN_PASSWORD }),
    });
    token = ((await login.json()) as { access_token: string }).access_token;
    b = await openBrowser();
  }, 90_000);

  afterAll(async () => {
    await b?.close();
    await controller?.stop();
    await node?.stop();
    powerBus?.close();
    await broker?.close();
    await tdb?.cleanup();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function relaynodePage(viewport = DESKTOP) {
    const s = await b.newSession(viewport);
    await s.context.addInitScript(
      `localStorage.setItem('outpost.controller.token', ${JSON.stringify(token)})`,
    );
    await s.page.goto(`${controller.url}/#/relaynode`);
    await s.page.getByTestId('wifi-networks').locator('tbody tr').first().waitFor({ timeout: 15_000 });
    return s;
  }
  const row = (page: Page, ssid: string) =>
    page.getByTestId('wifi-networks').locator(`tr[data-ssid="${ssid}"]`);
  const saved = (page: Page, ssid: string) =>
    page.getByTestId('wifi-saved').locator(`li[data-ssid="${ssid}"]`);

  it('lists the networks the relay node sees, strongest first, each with its signal', async () => {
    const { context, page } = await relaynodePage();
    const rows = page.getByTestId('wifi-networks').locator('tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-ssid')).toBe('ShedWifi');
    expect(await row(page, 'ShedWifi').getByTestId('wifi-signal').textContent()).toBe('80%');
    expect(await row(page, 'ShedWifi').textContent()).toContain('secured');
    expect(await row(page, 'OpenCafe').getByTestId('wifi-signal').textContent()).toBe('35%');
    expect(await row(page, 'OpenCafe').textContent()).toContain('5 GHz');
    // System information from the node is on the same page.
    await page.getByTestId('node-system').locator('dt').first().waitFor({ timeout: 15_000 });
    await screenshot(page, 'controller-relaynode-wifi-desktop');
    await context.close();
  }, 40_000);

  it('saves and joins networks with a password field whose value never stays in the page', async () => {
    const { context, page } = await relaynodePage(PHONE);
    const field = page.locator('input[name=wifi_password]');
    expect(await field.getAttribute('type')).toBe('password');
    // Typed values are properties, not markup: every field is asked for its value as well.
    const inFields = `[...document.querySelectorAll('input, textarea')].some((e) => e.value.includes(${JSON.stringify(WIFI_PASSWORD)}))`;

    // A network not in range, saved for later.
    await page.locator('input[name=wifi_ssid]').fill('Barn');
    await field.fill(WIFI_PASSWORD);
    expect(await page.evaluate<boolean>(inFields)).toBe(true);
    await page.getByRole('button', { name: 'Save for later' }).click();
    await page.getByTestId('wifi-feedback').filter({ hasText: 'Barn saved on the relay node' }).waitFor();
    await saved(page, 'Barn').waitFor();
    expect(await field.inputValue()).toBe('');
    expect(await page.content()).not.toContain(WIFI_PASSWORD);
    expect(await page.evaluate<boolean>(inFields)).toBe(false);
    // NetworkManager got it.
    const [barn] = (await savedProfiles()).match(/\/org\/freedesktop\/NetworkManager\/Settings\/\w+/g) ?? [];
    expect(await mock.call(NM, barn as string, `${NM}.Settings.Connection.GetSettings`)).toContain(
      `'psk': <'${WIFI_PASSWORD}'>`,
    );

    // A visible one, picked from the list and joined now.
    await row(page, 'ShedWifi').getByRole('button', { name: 'Use' }).click();
    expect(await page.locator('input[name=wifi_ssid]').inputValue()).toBe('ShedWifi');
    await field.fill(WIFI_PASSWORD);
    await page.getByRole('button', { name: 'Connect now' }).click();
    await page
      .getByTestId('wifi-feedback')
      .filter({ hasText: 'Relay node connecting to ShedWifi' })
      .waitFor();
    await expect.poll(() => saved(page, 'ShedWifi').textContent()).toContain('(connected)');
    expect(await field.inputValue()).toBe('');
    expect(await page.content()).not.toContain(WIFI_PASSWORD);
    await screenshot(page, 'controller-relaynode-wifi-phone');

    // Forget asks first; dismissed, the profile stays.
    page.once('dialog', (d) => void d.dismiss());
    await saved(page, 'Barn').getByRole('button', { name: 'Forget' }).click();
    expect(await savedProfiles()).toContain(barn);
    page.once('dialog', (d) => void d.accept());
    await saved(page, 'Barn').getByRole('button', { name: 'Forget' }).click();
    await page.getByTestId('wifi-feedback').filter({ hasText: 'Barn forgotten' }).waitFor();
    await expect.poll(() => saved(page, 'Barn').count()).toBe(0);
    expect(await savedProfiles()).not.toContain(barn);
    await context.close();
  }, 40_000);

  it('reboots only after the confirmation is accepted', async () => {
    await mock.call(LOGIND, LOGIND_PATH, `${MOCK}.ClearCalls`);
    const { context, page } = await relaynodePage();
    const reboot = page.getByRole('button', { name: 'Reboot relay node' });
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await reboot.click();
    await expect.poll(() => asked).toContain('Reboot the relay node');
    expect(await logindCalls()).not.toMatch(/Reboot/);
    expect(await page.getByTestId('power-feedback').count()).toBe(0);

    page.once('dialog', (d) => void d.accept());
    await reboot.click();
    await page.getByTestId('power-feedback').filter({ hasText: 'Relay node rebooting' }).waitFor();
    expect(await logindCalls()).toMatch(/'Reboot', \[<false>\]/);
    expect(await logindCalls()).not.toMatch(/PowerOff/);
    await context.close();
  }, 30_000);

  it('while the generator runs, says the node refuses to reboot or shut down and offers neither', async () => {
    await mock.call(LOGIND, LOGIND_PATH, `${MOCK}.ClearCalls`);
    expect((await rest('/api/generator/arm', {})).status).toBe(200);
    try {
      await expect
        .poll(async () => (await rest('/api/generator/start', {})).status, { timeout: 15_000 })
        .toBe(200);
      await expect.poll(() => node.node.isRelayOn, { timeout: 10_000 }).toBe(true);
      const { context, page } = await relaynodePage();
      await page.getByTestId('power-refused').waitFor({ timeout: 10_000 });
      expect(await page.getByTestId('power-refused').textContent()).toContain(
        'refuses to reboot or shut down',
      );
      expect(await page.getByRole('button', { name: 'Reboot relay node' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Shut down relay node' }).isDisabled()).toBe(true);
      // The node's own refusal, whatever a page shows.
      const refused = await rest('/api/relaynode/shutdown', { confirm: true });
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain('Refusing to shutdown while the relay is ON');
      await screenshot(page, 'controller-relaynode-power-refused-desktop');
      await context.close();
    } finally {
      await rest('/api/generator/stop', {});
      await rest('/api/generator/disarm', {});
    }
    await expect.poll(() => node.node.isRelayOn, { timeout: 10_000 }).toBe(false);
    expect(await logindCalls()).not.toMatch(/Reboot|PowerOff/);
  }, 60_000);
});
