import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachConditionSources, type ConditionSources } from '../../src/bus/condition-sources.js';
import type { Database } from '../../src/db/connection.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { type Mosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { waitFor } from '../helpers/wait.js';

const PORTAL = 'c0619ab1c2d3';
let tdb: TestDatabase;
let database: Database;
let site: Mosquitto | null;
let gxBroker: Mosquitto | null;
let bus: OutpostMqtt;
let sources: ConditionSources;
let t: TestApp;
let gx: FakeGx;

/**
 * A Venus OS GX as dbus-flashmq behaves: nothing is retained and nothing is published until a client
 * sends R/<portal>/keepalive; an empty keep-alive republishes every value, one with
 * `suppress-republish` only keeps it alive; changes are then published as `{"value": x}`, an invalid
 * value as `{"value": null}`, a device that left as an empty payload.
 */
class FakeGx {
  readonly keepalives: string[] = [];
  private aliveSince: number | null = null;
  readonly published: string[] = [];
  private readonly values = new Map<string, number | null>([
    // The system service (dbus-systemcalc-py): the selected battery monitor, consumption, active input.
    [`N/${PORTAL}/system/0/Dc/Battery/Soc`, 23.5],
    [`N/${PORTAL}/system/0/Dc/Battery/Voltage`, 51.26],
    [`N/${PORTAL}/system/0/Dc/Battery/Current`, -42.1],
    [`N/${PORTAL}/system/0/Ac/Consumption/L1/Power`, 2350],
    [`N/${PORTAL}/system/0/Ac/Consumption/L2/Power`, null],
    [`N/${PORTAL}/system/0/Ac/Consumption/L3/Power`, null],
    [`N/${PORTAL}/system/0/Ac/Consumption/Total/Power`, 2350],
    [`N/${PORTAL}/system/0/Ac/ActiveIn/Source`, 240],
    [`N/${PORTAL}/system/0/Serial`, null],
    // The devices themselves.
    [`N/${PORTAL}/battery/512/Soc`, 23.5],
    [`N/${PORTAL}/battery/512/Dc/0/Voltage`, 51.24],
    [`N/${PORTAL}/battery/512/Dc/0/Current`, -42.1],
    [`N/${PORTAL}/vebus/276/Ac/Out/P`, 2290],
    [`N/${PORTAL}/vebus/276/Alarms/HighTemperature`, 0],
    [`N/${PORTAL}/vebus/276/Alarms/Overload`, 0],
    [`N/${PORTAL}/vebus/276/Ac/ActiveIn/Connected`, 0],
  ]);

  private constructor(private readonly client: mqtt.MqttClient) {}

  static async start(url: string): Promise<FakeGx> {
    const client = await mqtt.connectAsync(url, { clientId: `venus-${process.pid}` });
    const gx = new FakeGx(client);
    client.on('message', (topic, payload) => gx.keepalive(topic, payload.toString()));
    await client.subscribeAsync(`R/${PORTAL}/keepalive`, { qos: 0 });
    return gx;
  }

  private keepalive(_topic: string, payload: string): void {
    this.keepalives.push(payload);
    this.aliveSince = Date.now();
    const options = payload ? (JSON.parse(payload)['keepalive-options'] as string[] | undefined) : undefined;
    if (options?.includes('suppress-republish')) return;
    for (const [topic, value] of this.values) this.send(topic, JSON.stringify({ value }));
    this.send(`N/${PORTAL}/full_publish_completed`, JSON.stringify({ value: Math.floor(Date.now() / 1000) }));
  }

  /** A value changes on the D-Bus: published only while someone keeps the GX alive. */
  change(path: string, value: number | null | 'gone'): void {
    const topic = `N/${PORTAL}/${path}`;
    this.values.set(topic, value === 'gone' ? null : value);
    if (this.aliveSince === null) return;
    this.send(topic, value === 'gone' ? '' : JSON.stringify({ value }));
  }

  private send(topic: string, payload: string): void {
    this.published.push(topic);
    this.client.publish(topic, payload, { qos: 0 });
  }

  close(): void {
    this.client.end(true);
  }
}

const overview = async () => (await t.request('GET', '/api/conditions')).body;
const values = async () =>
  Object.fromEntries(
    ((await overview()).sources as { name: string; value: number | null }[]).map((s) => [s.name, s.value]),
  );

beforeAll(async () => {
  site = await startMosquitto();
  gxBroker = await startMosquitto();
  if (!site || !gxBroker) return;
  tdb = await testDatabase();
  database = await tdb.open();
  t = await testApp(database);
  const logger = pino({ level: 'silent' });
  bus = await createMqtt({ url: site.url, service: 'controller', id: 'main', logger, prefix: 'vtest' });
  sources = await attachConditionSources(t.svc, {
    site: bus.client,
    clock: t.clock,
    logger,
    controllerId: 'main',
  });
  gx = await FakeGx.start(gxBroker.url);
}, 60_000);

afterAll(async () => {
  gx?.close();
  await sources?.close();
  await t?.close();
  await bus?.close();
  await database?.close();
  await tdb?.cleanup();
  await site?.cleanup();
  await gxBroker?.cleanup();
});

describe('Victron GX preset', () => {
  it('keeps the GX alive on its own broker and follows the Venus OS values', async (ctx) => {
    if (!site || !gxBroker) return ctx.skip();
    expect(gx.published).toEqual([]);
    const victron = {
      type: 'victron_gx',
      portal_id: PORTAL,
      broker_url: gxBroker.url,
      stale_after_seconds: 120,
    };
    const res = await t.request('PUT', '/api/conditions/config', {
      conditions: {
        soc: { enabled: true, start_value: 20, start_delay_seconds: 60, stop_value: 80 },
        battery_current: { enabled: false, start_value: 80, stop_value: 20 },
      },
      sources: {
        soc: victron,
        // A specific battery monitor instead of the one the GX selected.
        battery_voltage: { ...victron, battery_instance: 512 },
        battery_current: victron,
        ac_load: victron,
        // The warnings are only on the inverter: its instance is needed.
        overload: { ...victron, vebus_instance: 276 },
        grid: victron,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const topics = Object.fromEntries(
      (res.body.sources as { name: string; topic: string }[]).map((s) => [s.name, s.topic]),
    );
    expect(topics).toEqual({
      soc: `N/${PORTAL}/system/0/Dc/Battery/Soc`,
      battery_voltage: `N/${PORTAL}/battery/512/Dc/0/Voltage`,
      battery_current: `N/${PORTAL}/system/0/Dc/Battery/Current`,
      ac_load: `N/${PORTAL}/system/0/Ac/Consumption/Total/Power`,
      overload: `N/${PORTAL}/vebus/276/Alarms/Overload`,
      grid: `N/${PORTAL}/system/0/Ac/ActiveIn/Source`,
    });
    // The first keep-alive is empty (publish everything); only after it does the GX publish.
    await waitFor(async () => (await values()).soc === 23.5);
    expect(gx.keepalives[0]).toBe('');
    expect(await values()).toEqual({
      soc: 23.5,
      battery_voltage: 51.24,
      battery_current: 42.1,
      ac_load: 2350,
      overload: 0,
      grid: 0,
    });

    gx.change('system/0/Dc/Battery/Soc', 19.8);
    // The generator on the active input is not the grid; the grid (1) or shore (3) is.
    gx.change('system/0/Ac/ActiveIn/Source', 2);
    await waitFor(async () => (await values()).soc === 19.8);
    expect((await values()).grid).toBe(0);
    gx.change('system/0/Ac/ActiveIn/Source', 1);
    await waitFor(async () => (await values()).grid === 1);
    gx.change('system/0/Ac/ActiveIn/Source', 3);
    gx.change('system/0/Ac/Consumption/Total/Power', 4120);
    await waitFor(async () => (await values()).ac_load === 4120);
    expect((await values()).grid).toBe(1);
    expect((await overview()).conditions[0]).toMatchObject({
      name: 'soc',
      state: 'start_pending',
      countdown_seconds: 60,
    });

    // A device that left the D-Bus publishes an empty payload: unknown, never a start.
    gx.change('battery/512/Dc/0/Voltage', 'gone');
    gx.change('system/0/Ac/ActiveIn/Source', null);
    await waitFor(async () => (await values()).battery_voltage === null && (await values()).grid === null);

    // Every 30 s (half the GX's 60 s timeout) a keep-alive that asks for no republish.
    const before = gx.keepalives.length;
    t.clock.advance(30_000);
    await waitFor(() => gx.keepalives.length > before);
    expect(JSON.parse(gx.keepalives.at(-1) as string)).toEqual({
      'keepalive-options': ['suppress-republish'],
    });
  });
});
