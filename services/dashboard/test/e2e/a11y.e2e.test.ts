import { fileURLToPath } from 'node:url';
import { type RunningBroker, startBroker } from '@outpost/broker';
import { AxeReport } from '@outpost/ui/testing/a11y';
import {
  browserTestsEnabled,
  DESKTOP,
  type E2EBrowser,
  freePort,
  openBrowser,
  PHONE,
  type ServiceProcess,
  startService,
} from '@outpost/ui/testing';
import mqtt from 'mqtt';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DASHBOARD_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const P = 'outpost';

/** Heartbeats of a live simulator (running) and of a stopped one, as the simulator publishes them. */
const RUNNING = {
  sim_reachable: true,
  receiving_udp: false,
  uptime_seconds: 3600,
  mode: 'standalone',
  running: true,
  lat: 37.6135,
  lon: -122.357,
  altitude_ft: 13,
};
const STOPPED = { sim_reachable: true, receiving_udp: false, uptime_seconds: 60, mode: null, running: false };
const IDLE_SITE = {
  running: false,
  state: 'idle',
  current_run_id: null,
  start_time: null,
  runtime_seconds: 0,
  trigger: null,
  armed: false,
  slave_connected: true,
  slave_physical_safety_engaged: false,
  relay_node_relay_on: false,
  failsafe_triggered: false,
  health_alarm: null,
  hoa_position: 'auto',
};

/**
 * axe-core (WCAG 2.0 and 2.1, A and AA) over the fleet page in both themes: waiting for its first
 * update, with simulators online, stopped and offline and a site idle, running and in EPO, filtered to
 * nothing, with the sites hidden behind their login (and that login refused), and out of date (the
 * service gone: the warning banner).
 */
describe.skipIf(!browserTestsEnabled())('fleet dashboard accessibility (axe-core)', () => {
  let broker: RunningBroker;
  let dash: ServiceProcess;
  let b: E2EBrowser;
  let client: mqtt.MqttClient;
  let beat: ReturnType<typeof setInterval> | undefined;

  beforeAll(async () => {
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
    const port = await freePort();
    dash = await startService(
      DASHBOARD_MAIN,
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        MQTT_URL: broker.url,
        EXPECTED_SIMULATORS: 'sim-alpha,sim-bravo,sim-charlie',
        EXPECTED_SITES: 'gen-1:relay-1',
      },
      port,
    );
    client = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
    b = await openBrowser();
  }, 40_000);

  afterAll(async () => {
    clearInterval(beat);
    await b?.close();
    await client?.endAsync();
    await dash?.stop();
    await broker?.close();
  });

  const cell = (page: Page, id: string, col: string) =>
    page.locator(`tr[data-row="${id}"] td[data-col="${col}"]`);
  const site = (state: Record<string, unknown>) =>
    client.publishAsync(`${P}/controller/gen-1/state`, JSON.stringify(state), { retain: true, qos: 1 });

  it('finds no violation in any state, light or dark', async () => {
    const report = new AxeReport();
    const pages: [string, Page][] = [];
    for (const scheme of ['light', 'dark'] as const) {
      const { page } = await b.newSession(DESKTOP, scheme);
      await page.goto(dash.url);
      await expect.poll(() => page.getByTestId('conn').textContent()).toBe('live');
      await report.check(page, `${scheme} fleet, nothing reported yet`);
      pages.push([scheme, page]);
    }
    // sim-alpha live, sim-bravo up with its emulator stopped, sim-charlie never heard of (offline).
    beat = setInterval(() => {
      const at = { timestamp_ms: Date.now() };
      client.publish(`${P}/simulator/sim-alpha/heartbeat`, JSON.stringify({ ...RUNNING, ...at }));
      client.publish(`${P}/simulator/sim-bravo/heartbeat`, JSON.stringify({ ...STOPPED, ...at }));
    }, 500);
    await client.publishAsync(`${P}/controller/gen-1/availability`, 'online', { retain: true, qos: 1 });
    await client.publishAsync(`${P}/relaynode/relay-1/availability`, 'online', { retain: true, qos: 1 });
    await site(IDLE_SITE);
    for (const [scheme, page] of pages) {
      await expect
        .poll(() => cell(page, 'sim-alpha', 'online').textContent(), { timeout: 8000 })
        .toBe('online');
      await expect
        .poll(() => cell(page, 'sim-bravo', 'online').textContent(), { timeout: 8000 })
        .toBe('stopped');
      await expect
        .poll(() => cell(page, 'gen-1', 'running').textContent(), { timeout: 8000 })
        .toBe('stopped');
      await report.check(page, `${scheme} fleet, site idle`);
    }
    // At a phone's width (the tables scroll sideways inside their box), dark.
    {
      const { context, page } = await b.newSession(PHONE, 'dark');
      await page.goto(dash.url);
      await expect
        .poll(() => cell(page, 'gen-1', 'running').textContent(), { timeout: 8000 })
        .toBe('stopped');
      await report.check(page, 'dark phone fleet, site idle');
      await context.close();
    }
    await site({ ...IDLE_SITE, running: true, state: 'running', armed: true, relay_node_relay_on: true });
    for (const [scheme, page] of pages) {
      await expect
        .poll(() => cell(page, 'gen-1', 'running').textContent(), { timeout: 8000 })
        .toBe('running');
      await report.check(page, `${scheme} fleet, site running`);
    }
    await site({ ...IDLE_SITE, slave_physical_safety_engaged: true });
    for (const [scheme, page] of pages) {
      await expect.poll(() => cell(page, 'gen-1', 'epo').textContent(), { timeout: 8000 }).toBe('ENGAGED');
      await report.check(page, `${scheme} fleet, site EPO`);
      await page.locator('input[name=filter]').fill('nothing matches this');
      await page.getByText('No simulators match').waitFor();
      await report.check(page, `${scheme} fleet, filtered to nothing`);
      await page.locator('input[name=filter]').fill('');
    }
    // Beyond loopback the fleet state leaves the sites out until the sites login: that view, as the
    // service would send it, then the login refused.
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page } = await b.newSession(DESKTOP, scheme);
      await context.routeWebSocket(/\/ws$/, (ws) => {
        const server = ws.connectToServer();
        server.onMessage((m) => {
          const state = JSON.parse(String(m)) as Record<string, unknown>;
          delete state.generators;
          ws.send(JSON.stringify(state));
        });
      });
      await context.route('**/api/sites', (route) => route.fulfill({ status: 401, body: '' }));
      await page.goto(dash.url);
      await page.getByTestId('sites-login').waitFor({ timeout: 8000 });
      await report.check(page, `${scheme} fleet, sites hidden`);
      await page.getByTestId('sites-login').getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('sites-login').getByText('Not signed in').waitFor();
      await report.check(page, `${scheme} fleet, sites login refused`);
      await context.close();
    }
    // The service gone: each page warns that its values may be out of date.
    await dash.stop();
    for (const [scheme, page] of pages) {
      await page.locator('.banner-warn').waitFor({ timeout: 10_000 });
      await report.check(page, `${scheme} fleet, out of date`);
    }
    expect(report.checked).toHaveLength(17);
    expect(report.failures, report.failures.join('\n\n')).toEqual([]);
  }, 120_000);
});
