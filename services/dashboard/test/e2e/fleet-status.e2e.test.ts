import { fileURLToPath } from 'node:url';
import { type RunningBroker, startBroker } from '@outpost/broker';
import {
  browserTestsEnabled,
  DESKTOP,
  type E2EBrowser,
  freePort,
  openBrowser,
  redTexts,
  type ServiceProcess,
  startService,
} from '@outpost/ui/testing';
import mqtt from 'mqtt';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DASHBOARD_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const SIM = 'outpost/simulator/sim-one';

/**
 * What an operator reads at a glance: the header's count agrees with the rows in every state a
 * simulator goes through, and an idle generator site shows no red. The simulator and the site are
 * driven over the real broker with the messages their services publish.
 */
describe.skipIf(!browserTestsEnabled())('fleet page reads at a glance (Chromium)', () => {
  let broker: RunningBroker;
  let dash: ServiceProcess;
  let b: E2EBrowser;
  let client: mqtt.MqttClient;
  let page: Page;
  /** The heartbeat the simulator keeps sending (null: none), every 500 ms like a live one. */
  let heartbeat: Record<string, unknown> | null = null;
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
        EXPECTED_SIMULATORS: 'sim-one',
        EXPECTED_SITES: 'gen-1:relay-1',
      },
      port,
    );
    client = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
    beat = setInterval(() => {
      if (heartbeat)
        client.publish(`${SIM}/heartbeat`, JSON.stringify({ ...heartbeat, timestamp_ms: Date.now() }));
    }, 500);
    b = await openBrowser();
    page = (await b.newSession(DESKTOP)).page;
    await page.goto(dash.url);
  }, 40_000);

  afterAll(async () => {
    clearInterval(beat);
    await b?.close();
    await client?.endAsync();
    await dash?.stop();
    await broker?.close();
  });

  const cell = (id: string, col: string) => page.locator(`tr[data-row="${id}"] td[data-col="${col}"]`);

  /** The header's count and the rows' Status words, read together. */
  async function headerAndRows(): Promise<{ header: string; words: string[] }> {
    const header = (await page.getByTestId('summary').textContent()) ?? '';
    const words = await page
      .locator('table[aria-label="Simulators"] tbody tr td[data-col="online"]')
      .allTextContents();
    return { header, words };
  }

  it('the header counts exactly the rows that say online, in every state', async () => {
    const states: { name: string; apply: () => Promise<void>; word: string; online: number }[] = [
      {
        name: 'process up, quiet (no heartbeat)',
        apply: () =>
          client.publishAsync(`${SIM}/availability`, 'online', { retain: true, qos: 1 }).then(() => {}),
        word: 'online, idle',
        online: 1,
      },
      {
        name: 'emulator stopped',
        apply: async () => {
          heartbeat = {
            sim_reachable: true,
            receiving_udp: false,
            uptime_seconds: 5,
            mode: null,
            running: false,
          };
        },
        word: 'stopped',
        online: 0,
      },
      {
        name: 'running with a position',
        apply: async () => {
          heartbeat = {
            sim_reachable: true,
            receiving_udp: false,
            uptime_seconds: 9,
            mode: 'standalone',
            running: true,
            lat: 37.6213,
            lon: -122.379,
            altitude_ft: 13,
          };
        },
        word: 'online',
        online: 1,
      },
      {
        name: 'last will',
        apply: async () => {
          heartbeat = null;
          await client.publishAsync(`${SIM}/availability`, 'offline', { retain: true, qos: 1 });
        },
        word: 'offline',
        online: 0,
      },
    ];
    for (const s of states) {
      await s.apply();
      await expect.poll(() => cell('sim-one', 'online').textContent(), { timeout: 8000 }).toBe(s.word);
      // Both read from one rendered page: the header and the rows it counts.
      const { header, words } = await headerAndRows();
      const saysOnline = words.filter((w) => w === 'online' || w === 'online, idle').length;
      expect(header, s.name).toBe(`${saysOnline} of ${words.length} simulators online`);
      expect(header, s.name).toBe(`${s.online} of 1 simulators online`);
    }
  }, 60_000);

  it('an idle site shows no red: stopped, disarmed, relay off are neutral', async () => {
    await client.publishAsync('outpost/controller/gen-1/availability', 'online', { retain: true, qos: 1 });
    await client.publishAsync('outpost/relaynode/relay-1/availability', 'online', { retain: true, qos: 1 });
    const idle = {
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
    await client.publishAsync('outpost/controller/gen-1/state', JSON.stringify(idle), {
      retain: true,
      qos: 1,
    });
    await expect.poll(() => cell('gen-1', 'running').textContent(), { timeout: 8000 }).toBe('stopped');
    expect(await cell('gen-1', 'relay').textContent()).toBe('off');
    expect(await cell('gen-1', 'armed').textContent()).toBe('no');
    expect(await redTexts(page, 'tr[data-row="gen-1"]')).toEqual([]);
    // The same site running: the generator reads green, and still nothing is red.
    await client.publishAsync(
      'outpost/controller/gen-1/state',
      JSON.stringify({ ...idle, running: true, state: 'running', armed: true, relay_node_relay_on: true }),
      { retain: true, qos: 1 },
    );
    await expect.poll(() => cell('gen-1', 'running').textContent(), { timeout: 8000 }).toBe('running');
    expect(await cell('gen-1', 'running').locator('[data-tone]').getAttribute('data-tone')).toBe('good');
    expect(await redTexts(page, 'tr[data-row="gen-1"]')).toEqual([]);
    // A fault is red: the EPO engaged.
    await client.publishAsync(
      'outpost/controller/gen-1/state',
      JSON.stringify({ ...idle, slave_physical_safety_engaged: true }),
      { retain: true, qos: 1 },
    );
    await expect.poll(() => cell('gen-1', 'epo').textContent(), { timeout: 8000 }).toBe('ENGAGED');
    expect(await redTexts(page, 'tr[data-row="gen-1"]')).toEqual(['ENGAGED']);
  }, 40_000);
});
