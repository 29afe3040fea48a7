import { createMqtt, type OutpostMqtt } from '@outpost/runtime';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '@outpost/runtime/clock';
import { outboundPolicy, urlPolicyRefusal } from '@outpost/runtime';
import { attachConditionSources, ConditionSources } from '../../src/bus/condition-sources.js';
import { ConditionsConfig } from '@outpost/contracts/conditions';
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
 * A Venus OS GX as dbus-flashmq (github.com/victronenergy/dbus-flashmq, v25) behaves:
 * - nothing is published until a client sends R/<portal>/keepalive, except the serial, which it keeps
 *   retained from the start (src/state.cpp:145 `if (this->alive || fully_mapped_item.should_be_retained()
 *   || force_publish)`; src/types.cpp:394-397 should_be_retained: system, /Serial; types.cpp:345-352
 *   publishes it with retain);
 * - a keep-alive makes it alive for 60 s (state.cpp:433-436, `flashmq_add_task(f, 60000)`); an empty one
 *   republishes every value and ends with `N/<portal>/full_publish_completed {"value": <unix s>}`
 *   (state.cpp:396-431 handle_keepalive, and 470-491 publish_all); one with `suppress-republish` only
 *   keeps it alive (README, "Keep-alive");
 * - while alive it sends `N/<portal>/heartbeat {"value": <unix s>}` every 3 s (state.cpp:448-468,
 *   State::heartbeat, `flashmq_add_task(f, 3000)`), and stops when the keep-alive runs out;
 * - changes are then published as `{"value": x}`, an invalid value as `{"value": null}`, a device that
 *   left as an empty payload (README, "Notifications"); nothing else is retained (README, "No more
 *   retained messages").
 * Its timers run on the test's clock, as the controller's do.
 */
class FakeGx {
  readonly keepalives: string[] = [];
  private aliveUntil: number | null = null;
  readonly published: string[] = [];
  private client: mqtt.MqttClient | null = null;
  private readonly beat: unknown;
  private readonly values: Map<string, number | null>;

  private constructor(
    private readonly url: string,
    private readonly clock: ManualClock,
    readonly portal: string,
  ) {
    const p = portal;
    this.values = new Map<string, number | null>([
      // The system service (dbus-systemcalc-py): the selected battery monitor, consumption, active input.
      [`N/${p}/system/0/Dc/Battery/Soc`, 23.5],
      [`N/${p}/system/0/Dc/Battery/Voltage`, 51.26],
      [`N/${p}/system/0/Dc/Battery/Current`, -42.1],
      [`N/${p}/system/0/Ac/Consumption/L1/Power`, 2350],
      [`N/${p}/system/0/Ac/Consumption/L2/Power`, null],
      [`N/${p}/system/0/Ac/Consumption/L3/Power`, null],
      [`N/${p}/system/0/Ac/Consumption/Total/Power`, 2350],
      [`N/${p}/system/0/Ac/ActiveIn/Source`, 240],
      // The devices themselves.
      [`N/${p}/battery/512/Soc`, 23.5],
      [`N/${p}/battery/512/Dc/0/Voltage`, 51.24],
      [`N/${p}/battery/512/Dc/0/Current`, -42.1],
      [`N/${p}/vebus/276/Ac/Out/P`, 2290],
      [`N/${p}/vebus/276/Alarms/HighTemperature`, 0],
      [`N/${p}/vebus/276/Alarms/Overload`, 0],
      [`N/${p}/vebus/276/Ac/ActiveIn/Connected`, 0],
    ]);
    this.beat = clock.setInterval(() => {
      if (this.alive) this.send(`N/${p}/heartbeat`, JSON.stringify({ value: this.unix() }));
    }, 3000);
  }

  static async start(url: string, clock: ManualClock, portal = PORTAL): Promise<FakeGx> {
    const gx = new FakeGx(url, clock, portal);
    await gx.power();
    return gx;
  }

  /** Boots (or boots again): not alive, its serial retained on the broker. */
  async power(): Promise<void> {
    const client = await mqtt.connectAsync(this.url, { clientId: `venus-${this.portal}-${process.pid}` });
    this.client = client;
    this.aliveUntil = null;
    client.on('message', (_topic, payload) => this.keepalive(payload.toString()));
    await client.subscribeAsync(`R/${this.portal}/keepalive`, { qos: 0 });
    await client.publishAsync(`N/${this.portal}/system/0/Serial`, JSON.stringify({ value: this.portal }), {
      qos: 0,
      retain: true,
    });
    this.published.push(`N/${this.portal}/system/0/Serial`);
  }

  /** The GX loses power: silent, and it hears no keep-alive. */
  async cut(): Promise<void> {
    await this.client?.endAsync(true);
    this.client = null;
    this.aliveUntil = null;
  }

  get alive(): boolean {
    return this.client !== null && this.aliveUntil !== null && this.clock.now() < this.aliveUntil;
  }

  private unix(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  private keepalive(payload: string): void {
    this.keepalives.push(payload);
    this.aliveUntil = this.clock.now() + 60_000;
    if (payload.includes('suppress-republish')) return;
    for (const [topic, value] of this.values) this.send(topic, JSON.stringify({ value }));
    this.send(`N/${this.portal}/full_publish_completed`, JSON.stringify({ value: this.unix() }));
  }

  /** A value changes on the D-Bus: published only while someone keeps the GX alive. */
  change(path: string, value: number | null | 'gone'): void {
    const topic = `N/${this.portal}/${path}`;
    this.values.set(topic, value === 'gone' ? null : value);
    if (!this.alive) return;
    this.send(topic, value === 'gone' ? '' : JSON.stringify({ value }));
  }

  private send(topic: string, payload: string): void {
    if (!this.client) return;
    this.published.push(topic);
    this.client.publish(topic, payload, { qos: 0 });
  }

  async close(): Promise<void> {
    this.clock.clearInterval(this.beat);
    // Its retained serial goes with it (a later test's broker state starts clean).
    await this.client?.publishAsync(`N/${this.portal}/system/0/Serial`, '', { qos: 0, retain: true });
    await this.cut();
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
  gx = await FakeGx.start(gxBroker.url, t.clock);
}, 60_000);

afterAll(async () => {
  await gx?.close();
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
    // Before a keep-alive the GX publishes nothing but its retained serial.
    expect(gx.published).toEqual([`N/${PORTAL}/system/0/Serial`]);
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

const source = async (name: string) =>
  ((await overview()).sources as { name: string; value: number | null; status: string }[]).find(
    (s) => s.name === name,
  );

/** Moves the clock (the GX's heartbeat and the controller's keep-alive with it), then waits for delivery. */
async function heartbeats(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const heard = sources.lifeSigns.get(PORTAL) ?? 0;
    t.clock.advance(3000);
    await waitFor(() => (sources.lifeSigns.get(PORTAL) ?? 0) > heard);
  }
}

describe('Victron GX freshness: it publishes only changes', () => {
  it('keeps unchanged values fresh for 3 × stale_after while the heartbeat runs, stale soon after it stops', async (ctx) => {
    if (!site || !gxBroker) return ctx.skip();
    // Inverting, no AC input connected: the grid is known to be absent.
    gx.change('system/0/Ac/ActiveIn/Source', 240);
    const victron = {
      type: 'victron_gx',
      portal_id: PORTAL,
      broker_url: gxBroker.url,
      stale_after_seconds: 10,
    };
    const res = await t.request('PUT', '/api/conditions/config', {
      conditions: { soc: { enabled: true, start_value: 20, stop_value: 80 } },
      sources: { soc: victron, grid: victron },
      keep_off_while_grid: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // A changed source starts with no value: the save asks the GX for every value again.
    await waitFor(
      async () => (await source('soc'))?.status === 'ok' && (await source('grid'))?.status === 'ok',
    );
    expect(gx.keepalives.at(-1)).toBe('');
    const soc = (await source('soc'))?.value;
    expect(soc).toEqual(expect.any(Number));
    const published = gx.published.length;

    // 30 s, three times the stale time, with no value changing: only heartbeats arrive.
    for (let s = 0; s < 30; s += 3) {
      await heartbeats(1);
      expect(await source('soc')).toMatchObject({ status: 'ok', value: soc });
      expect(await source('grid')).toMatchObject({ status: 'ok', value: 0 });
    }
    const sent = gx.published.slice(published);
    expect(sent.length).toBeGreaterThanOrEqual(10);
    expect(new Set(sent)).toEqual(new Set([`N/${PORTAL}/heartbeat`]));
    // keep_off_while_grid sees the grid as known all along (absent here), not as unknown.
    expect((await overview()).grid_present).toBe(false);

    // The GX loses power: no heartbeat. Stale once stale_after has passed since the last sign of life.
    const lastLife = t.clock.now();
    await gx.cut();
    let staleAt: number | null = null;
    for (let s = 0; s < 20 && staleAt === null; s++) {
      t.clock.advance(1000);
      if ((await source('soc'))?.status === 'stale') staleAt = t.clock.now();
    }
    expect(staleAt).not.toBeNull();
    expect((staleAt as number) - lastLife).toBeGreaterThanOrEqual(10_000);
    expect((staleAt as number) - lastLife).toBeLessThanOrEqual(10_000 + 3000);
    expect(await source('soc')).toMatchObject({ status: 'stale', value: null });
    // The wake-up at the stale time evaluates on the controller's queue: the grid turns unknown then.
    await waitFor(async () => (await overview()).grid_present === null);

    // It boots again, silent until a keep-alive; the controller's next one (every 30 s, no republish)
    // wakes it, its heartbeat after silence makes the controller ask for every value again, and the
    // full publish (ending with full_publish_completed) brings the sources back.
    await gx.power();
    const before = gx.keepalives.length;
    for (let s = 0; s < 12 && gx.keepalives.length === before; s++) {
      t.clock.advance(3000);
      await new Promise((r) => setTimeout(r, 50));
    }
    await waitFor(() => gx.keepalives.length > before);
    t.clock.advance(3000);
    await waitFor(() => gx.keepalives.slice(before).includes(''));
    await waitFor(async () => (await source('soc'))?.status === 'ok');
    expect(gx.published.at(-1)).toBe(`N/${PORTAL}/full_publish_completed`);
    expect(await source('soc')).toMatchObject({ status: 'ok', value: soc });
  });

  it('finds the portal id from the one GX on the broker, and refuses to guess between two', async (ctx) => {
    if (!site || !gxBroker) return ctx.skip();
    const config = (portal?: string) => ({
      conditions: {},
      sources: {
        soc: { type: 'victron_gx', broker_url: gxBroker?.url, ...(portal ? { portal_id: portal } : {}) },
      },
    });
    const found = await t.request('PUT', '/api/conditions/config', config());
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.config.sources.soc.portal_id).toBe(PORTAL);
    expect(found.body.sources[0].topic).toBe(`N/${PORTAL}/system/0/Dc/Battery/Soc`);
    await waitFor(async () => (await source('soc'))?.status === 'ok');

    const other = await FakeGx.start((gxBroker as Mosquitto).url, t.clock, 'b827eb5a6e11');
    try {
      const two = await t.request('PUT', '/api/conditions/config', config());
      expect(two.status).toBe(422);
      expect(two.body.detail).toContain('sources.soc.portal_id');
      expect(two.body.detail).toContain(`${PORTAL}`);
      expect(two.body.detail).toContain('b827eb5a6e11');
      // Nothing changed: the source still reads the GX it found.
      expect((await overview()).config.sources.soc.portal_id).toBe(PORTAL);
      // Named, it is taken as given.
      const named = await t.request('PUT', '/api/conditions/config', config('b827eb5a6e11'));
      expect(named.status).toBe(200);
      await waitFor(async () => (await source('soc'))?.value === 23.5);
      expect((await overview()).sources[0].topic).toBe('N/b827eb5a6e11/system/0/Dc/Battery/Soc');
      expect(other.keepalives).toContain('');
    } finally {
      await other.close();
    }
  });
});

describe('a source broker the outbound rule refuses', () => {
  it('is not connected to, even from a configuration saved before the rule narrowed', async (ctx) => {
    if (!site || !gxBroker) return ctx.skip();
    const config = ConditionsConfig.parse({
      sources: { soc: { type: 'victron_gx', portal_id: PORTAL, broker_url: gxBroker.url } },
    });
    const open = async (allowed: string) => {
      const s = new ConditionSources({
        site: null,
        sink: t.svc.conditions,
        clock: t.clock,
        logger: pino({ level: 'silent' }),
        clientIdBase: `outbound-${allowed.replace(/\W/g, '')}`,
        outboundRefusal: (url) => urlPolicyRefusal(url, outboundPolicy(allowed)),
      });
      await s.apply(config);
      return s;
    };
    // The site's LAN only: the loopback broker is refused, and the GX hears nothing.
    const before = gx.keepalives.length;
    const refused = await open('192.168.1.0/24');
    await new Promise((r) => setTimeout(r, 1000));
    expect(gx.keepalives.length).toBe(before);
    await refused.close();
    // Loopback listed: the same configuration connects and keeps the GX alive.
    const allowed = await open('127.0.0.0/8');
    await waitFor(() => gx.keepalives.length > before);
    await allowed.close();
  });
});
