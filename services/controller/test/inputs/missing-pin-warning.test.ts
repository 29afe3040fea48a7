import { type RunningBroker, startBroker } from '@outpost/broker';
import { FakeChip } from '@outpost/gpiochip/testing';
import { createLogger } from '@outpost/runtime';
import { browserTestsEnabled, DESKTOP, openBrowser } from '@outpost/ui/testing';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerEnv } from '../../src/config.js';
import { type RunningController, startController } from '../../src/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A Pi wired without a BMS input never starts the generator by itself. The whole controller runs here as
 * on a Pi (GPIO_MODE=auto, only the gpiod tools are a fake chip), and the operator must be told where
 * they look: /health, the console (which reads /health) and Home Assistant's diagnostic entity.
 */
describe('a Pi with no BMS pin', () => {
  let broker: RunningBroker;
  let db: TestDatabase;
  let controller: RunningController;
  const logged: string[] = [];

  beforeAll(async () => {
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
    db = await testDatabase();
    const env = ControllerEnv.parse({
      DATABASE_URL: db.url,
      MQTT_URL: broker.url,
      JWT_SECRET: 'missing-pin-test-secret-0123456789',
      ADMIN_PASSWORD: 'missing-pin-admin-pw',
      HOST: '127.0.0.1',
      PORT: '0',
      GPIO_MODE: 'auto',
      // The webhook receiver of the test listens on loopback.
      OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
      HOA_SWITCH_ENABLED: 'true',
      HOA_GPIO_QUIET: '20',
    });
    const logger = createLogger({
      service: 'controller',
      level: 'warn',
      destination: { write: (line: string) => logged.push(line) },
    });
    const chip = new FakeChip({ label: 'pinctrl-rp1' });
    controller = await startController(env, {
      logger,
      inputs: { runner: chip.runner(), devDir: chip.devDir(), isPi: true },
    });
  }, 30_000);

  afterAll(async () => {
    await controller?.close();
    await db?.cleanup();
    await broker?.close();
  });

  it('says "automatic start disabled: no input pin" in the log and in /health', async () => {
    expect(logged.join('')).toContain('automatic start disabled: no input pin (BMS_GPIO_PIN)');
    expect(await (await fetch(`${controller.url}/health`)).json()).toEqual({ status: 'healthy' });
    const login = await fetch(`${controller.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'missing-pin-admin-pw' }),
    });
    const { access_token } = (await login.json()) as { access_token: string };
    const res = await fetch(`${controller.url}/health`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { gpio: string; warnings: string[] };
    expect(body.gpio).toBe('gpiochip');
    expect(body.warnings).toEqual([
      'automatic start disabled: no input pin (BMS_GPIO_PIN)',
      'HOA switch disabled: no input pin (HOA_GPIO_RUN)',
    ]);
  });

  it('publishes it as a Home Assistant diagnostic entity', async () => {
    const client = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    let config: { cmps: Record<string, Record<string, unknown>> } | null = null;
    client.on('message', (_t, payload) => {
      if (payload.length) config = JSON.parse(payload.toString());
    });
    await client.subscribeAsync('homeassistant/device/+/config', { qos: 1 });
    await waitFor(() => config !== null, 5_000);
    await client.endAsync();
    const entity = config!.cmps.input_warning;
    expect(entity).toMatchObject({ p: 'sensor', entity_category: 'diagnostic', icon: 'mdi:alert' });
    expect(entity?.value_template).toContain('automatic start disabled: no input pin (BMS_GPIO_PIN)');
  });

  it('tests webhooks from the admin API, with no development endpoints on a Pi', async () => {
    const rx = await startReceiver();
    try {
      const login = await fetch(`${controller.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'missing-pin-admin-pw' }),
      });
      const { access_token } = (await login.json()) as { access_token: string };
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${controller.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
          body: body === undefined ? '{}' : JSON.stringify(body),
        });
      expect((await call('POST', '/api/dev/webhook/test')).status).toBe(404);
      expect((await call('POST', '/api/webhooks/test')).status).toBe(409);
      expect((await call('POST', '/api/webhooks', { url: rx.url, secret: 'pi-webhook-secret' })).status).toBe(
        201,
      );
      const res = await call('POST', '/api/webhooks/test');
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ sent: 1, results: [{ ok: true, status: 200 }] });
      expect(JSON.parse(rx.requests[0]!.body)).toMatchObject({ event: 'webhook.test' });
    } finally {
      await rx.close();
    }
  });

  it.skipIf(!browserTestsEnabled())("shows it on the console's status page", async () => {
    const b = await openBrowser();
    try {
      const { page } = await b.newSession(DESKTOP, 'light');
      await page.goto(controller.url);
      await page.locator('input[name=username]').fill('admin');
      await page.locator('input[name=password]').fill('missing-pin-admin-pw');
      await page.getByRole('button', { name: 'Log in' }).click();
      const shown = page.getByTestId('site-warning');
      await shown.first().waitFor();
      expect(await shown.allTextContents()).toEqual([
        'automatic start disabled: no input pin (BMS_GPIO_PIN)',
        'HOA switch disabled: no input pin (HOA_GPIO_RUN)',
      ]);
    } finally {
      await b.close();
    }
  });
});
