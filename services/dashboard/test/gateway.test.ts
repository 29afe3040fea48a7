import { readFileSync } from 'node:fs';
import { type RunningBroker, startBroker } from '@outpost/broker';
import { FleetState } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Dashboard, startDashboard } from '../src/app.js';
import { openWs, silentLogger, testConfig, waitFor } from './helpers.js';

/** The release version: the root package.json's, reported by every service. */
const RELEASE = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

let broker: RunningBroker;
let dash: Dashboard;
let authDash: Dashboard;
let pub: MqttClient;
const clock = new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));

const heartbeat = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    sim_reachable: true,
    receiving_udp: false,
    uptime_seconds: 12,
    mode: 'rebroadcaster',
    running: true,
    lat: 47.5,
    lon: -122.3,
    altitude_ft: 400,
    last_input_age_seconds: null,
    timestamp_ms: clock.now(),
    ...over,
  });

beforeAll(async () => {
  broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
  dash = await startDashboard(
    testConfig({
      mqttUrl: broker.url,
      expectedSimulators: ['alpha', 'bravo'],
      expectedSites: [{ id: 'main', relaynode: 'main' }],
    }),
    {
      logger: silentLogger,
      clock,
    },
  );
  authDash = await startDashboard(
    testConfig({
      mqttUrl: broker.url,
      serviceId: 'locked',
      auth: { username: 'ops', password: 's3cret:x' },
      publish: false,
    }),
    { logger: silentLogger, clock },
  );
  pub = await mqtt.connectAsync(broker.url, { clientId: 'test-publisher' });
  await waitFor(() => dash.bus.connected && authDash.bus.connected, 5000, 'dashboards connected');
  // Subscriptions are sent on connect; one round trip through the broker settles them.
  await new Promise((r) => setTimeout(r, 100));
  await pub.publishAsync('outpost/simulator/alpha/availability', 'online', { qos: 1, retain: true });
  await pub.publishAsync('outpost/simulator/alpha/heartbeat', heartbeat());
  await waitFor(() => dash.fleet.get('alpha', clock.now())?.online, 5000, 'alpha online');
});

afterAll(async () => {
  await pub?.endAsync();
  await dash?.close();
  await authDash?.close();
  await broker?.close();
});

const auth = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('GET /api/status', () => {
  it('returns the fleet: a reporting simulator online, a silent expected one offline, the generator site', async () => {
    clock.advance(1000);
    const res = await fetch(`${dash.url}/api/status`);
    expect(res.status).toBe(200);
    const body = FleetState.parse(await res.json());
    expect(body.type).toBe('fleet_state');
    expect(body.simulators.map((s) => [s.id, s.online])).toEqual([
      ['alpha', true],
      ['bravo', false],
    ]);
    expect(body.simulators[0]).toMatchObject({
      sim_reachable: true,
      mode: 'rebroadcaster',
      uptime_seconds: 12,
      lat: 47.5,
    });
    expect(body.generators).toEqual([expect.objectContaining({ id: 'main', controller_online: false })]);
  });

  it('shows generator state published by a controller and relay node on the same bus', async () => {
    await pub.publishAsync('outpost/controller/main/availability', 'online', { qos: 1, retain: true });
    await pub.publishAsync('outpost/relaynode/main/availability', 'online', { qos: 1, retain: true });
    await pub.publishAsync(
      'outpost/relaynode/main/state',
      JSON.stringify({
        relay_on: false,
        armed: true,
        failsafe_triggered: true,
        physical_safety_engaged: true,
        applied_seq: 3,
        epoch: 'ep',
        last_heartbeat: 1_790_000_000,
        timeout_seconds: 30,
        updated_at: Math.floor(clock.now() / 1000),
      }),
      { qos: 1, retain: true },
    );
    await waitFor(() => dash.sites.list()[0]?.failsafe_triggered === true, 5000, 'relay node state');
    clock.advance(1000);
    const body = FleetState.parse(await (await fetch(`${dash.url}/api/status`)).json());
    expect(body.generators[0]).toEqual({
      id: 'main',
      controller_online: true,
      running: null,
      armed: null,
      relaynode_online: true,
      relay_on: false,
      failsafe_triggered: true,
      physical_safety_engaged: true,
    });
  });

  it('a malformed heartbeat is dropped and changes nothing', async () => {
    const before = dash.fleet.get('alpha', clock.now());
    await pub.publishAsync('outpost/simulator/alpha/heartbeat', '{"sim_reachable": "yes"');
    await pub.publishAsync('outpost/simulator/alpha/heartbeat', heartbeat({ uptime_seconds: -5 }));
    await new Promise((r) => setTimeout(r, 150));
    expect(dash.fleet.get('alpha', clock.now())).toEqual(before);
  });
});

describe('read-only', () => {
  const paths = [
    '/api/status',
    '/ws',
    '/',
    '/health',
    '/api/openapi.json',
    '/api/simulators',
    '/no/such/path',
  ];
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    it(`${method} is refused with 405 on every path and changes nothing`, async () => {
      const before = dash.fleet.get('bravo', clock.now());
      for (const path of paths) {
        const res = await fetch(`${dash.url}${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: 'bravo', online: true }),
        });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow')).toBe('GET, HEAD');
        expect(await res.json()).toEqual({
          detail: `Method ${method} not allowed: the dashboard is read-only`,
        });
      }
      expect(dash.fleet.get('bravo', clock.now())).toEqual(before);
    });
  }

  it('the OpenAPI document lists the status snapshot and the WebSocket, and no mutating operation', async () => {
    const doc = (await (await fetch(`${dash.url}/api/openapi.json`)).json()) as {
      info: { version: string };
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.info.version).toBe(RELEASE);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/status', '/ws']));
    for (const ops of Object.values(doc.paths)) {
      expect(Object.keys(ops).filter((m) => ['post', 'put', 'patch', 'delete'].includes(m))).toEqual([]);
    }
    for (const path of ['/api/docs', '/api/redoc', '/'])
      expect((await fetch(`${dash.url}${path}`)).status).toBe(200);
  });
});

describe('/api/asyncapi.json', () => {
  it('serves the bus contract, the committed contracts/asyncapi.json, read-only and behind DASHBOARD_AUTH', async () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../../contracts/asyncapi.json', import.meta.url), 'utf8'),
    ) as { asyncapi: string; channels: Record<string, { address: string }> };
    const res = await fetch(`${dash.url}/api/asyncapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as typeof committed;
    expect(doc).toEqual(committed);
    expect(doc.asyncapi).toMatch(/^3\./);
    expect(doc.channels.simulatorPosition?.address).toBe('outpost/simulator/{id}/position');
    expect((await fetch(`${dash.url}/api/asyncapi.json`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${authDash.url}/api/asyncapi.json`)).status).toBe(401);
    const basic = `Basic ${Buffer.from('ops:s3cret:x').toString('base64')}`;
    expect(
      (await fetch(`${authDash.url}/api/asyncapi.json`, { headers: { authorization: basic } })).status,
    ).toBe(200);
  });
});

describe('/ws', () => {
  it('sends fleet_state on connect and then once per second to every client', async () => {
    const a = await openWs(`${dash.url.replace('http', 'ws')}/ws`);
    const b = await openWs(`${dash.url.replace('http', 'ws')}/ws`);
    const first = FleetState.parse(await a.next());
    expect(first.simulators.map((s) => s.id)).toEqual(['alpha', 'bravo']);
    await b.next();
    for (let i = 1; i <= 3; i++) {
      clock.advance(1000);
      const ma = FleetState.parse(await a.next());
      const mb = FleetState.parse(await b.next());
      expect(ma.timestamp_ms).toBe(mb.timestamp_ms);
    }
    expect(a.messages).toHaveLength(4);
    // What a client sends is ignored, and it keeps receiving.
    a.ws.send(JSON.stringify({ type: 'set', id: 'bravo', online: true }));
    clock.advance(1000);
    expect(FleetState.parse(await a.next()).simulators[1]?.online).toBe(false);
    a.ws.close();
    b.ws.close();
  });

  it('a simulator whose heartbeats stop is shown offline 3 s after the last one', async () => {
    const c = await openWs(`${dash.url.replace('http', 'ws')}/ws`);
    await c.next();
    await pub.publishAsync('outpost/simulator/alpha/heartbeat', heartbeat());
    await waitFor(() => dash.fleet.get('alpha', clock.now())?.last_heartbeat_age_seconds === 0);
    const seen: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      clock.advance(1000);
      seen.push(FleetState.parse(await c.next()).simulators[0]?.online ?? true);
    }
    expect(seen).toEqual([true, true, false, false]);
    c.ws.close();
  });

  it('live subscribers get the fleet snapshot on dashboard/<id>/fleet; it is not retained', async () => {
    const live = await mqtt.connectAsync(broker.url, { clientId: 'test-fleet-live' });
    const got: { payload: string; retain: boolean }[] = [];
    live.on('message', (_t, p, packet) => got.push({ payload: String(p), retain: packet.retain }));
    await live.subscribeAsync('outpost/dashboard/main/fleet');
    for (let i = 0; i < 3 && got.length === 0; i++) {
      clock.advance(1000);
      await waitFor(() => got.length > 0, 1000, 'a fleet snapshot').catch(() => undefined);
    }
    const first = got[0]!;
    expect(first.retain).toBe(false);
    expect(FleetState.parse(JSON.parse(first.payload)).simulators.map((s) => s.id)).toEqual([
      'alpha',
      'bravo',
    ]);

    // A new subscriber (an MQTT explorer opening `#`) is not handed the snapshot by the broker.
    const late = await mqtt.connectAsync(broker.url, { clientId: 'test-fleet-late' });
    const lateGot: string[] = [];
    late.on('message', (t) => lateGot.push(t));
    await late.subscribeAsync(['outpost/dashboard/#', '#']);
    await new Promise((r) => setTimeout(r, 300));
    expect(lateGot.filter((t) => t.endsWith('/fleet'))).toEqual([]);
    await late.endAsync();
    await live.endAsync();
  });

  it('removes a retained snapshot an earlier version left on the broker', async () => {
    const topic = 'outpost/dashboard/upgraded/fleet';
    await pub.publishAsync(topic, JSON.stringify({ type: 'fleet_state', stale: 'x'.repeat(10_000) }), {
      qos: 1,
      retain: true,
    });
    const retainedNow = async () => {
      const c = await mqtt.connectAsync(broker.url, { clientId: `test-retained-${Date.now()}` });
      const seen: number[] = [];
      c.on('message', (_t, p) => seen.push(p.length));
      await c.subscribeAsync(topic);
      await new Promise((r) => setTimeout(r, 200));
      await c.endAsync();
      return seen;
    };
    expect(await retainedNow()).toHaveLength(1);
    const upgraded = await startDashboard(testConfig({ mqttUrl: broker.url, serviceId: 'upgraded' }), {
      logger: silentLogger,
      clock,
    });
    try {
      await waitFor(() => upgraded.bus.connected, 5000, 'dashboard connected');
      clock.advance(2000);
      await new Promise((r) => setTimeout(r, 200));
      expect(await retainedNow()).toEqual([]);
    } finally {
      await upgraded.close();
    }
  });
});

describe('optional DASHBOARD_AUTH', () => {
  it('asks for credentials on the API and the WebSocket, but not on /health', async () => {
    const none = await fetch(`${authDash.url}/api/status`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(
      (await fetch(`${authDash.url}/api/status`, { headers: { authorization: auth('ops', 'wrong') } }))
        .status,
    ).toBe(401);
    expect(
      (await fetch(`${authDash.url}/api/status`, { headers: { authorization: auth('ops', 's3cret:x') } }))
        .status,
    ).toBe(200);
    expect((await fetch(`${authDash.url}/health`)).status).toBe(200);
    // With the credentials /health says more, and its version is the release's, as everywhere.
    const health = await fetch(`${authDash.url}/health`, {
      headers: { authorization: auth('ops', 's3cret:x') },
    });
    expect(await health.json()).toMatchObject({ status: 'healthy', service: 'dashboard', version: RELEASE });
    await expect(openWs(`${authDash.url.replace('http', 'ws')}/ws`)).rejects.toThrow('HTTP 401');
    const ok = await openWs(`${authDash.url.replace('http', 'ws')}/ws`, {
      authorization: auth('ops', 's3cret:x'),
    });
    expect(FleetState.parse(await ok.next()).type).toBe('fleet_state');
    ok.ws.close();
  });

  it('without DASHBOARD_AUTH nobody is asked for credentials', async () => {
    expect((await fetch(`${dash.url}/api/status`)).status).toBe(200);
  });

  it('a WebSocket on any other path is refused', async () => {
    const ws = new WebSocket(`${dash.url.replace('http', 'ws')}/api/status`);
    const status = await new Promise<number>((resolve) => {
      ws.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
      ws.once('error', () => resolve(-1));
    });
    expect(status).toBe(404);
  });
});

describe('topic levels as ids', () => {
  it('odd but legal topic levels are just ids', async () => {
    await pub.publishAsync('outpost/simulator/__proto__/heartbeat', heartbeat());
    await pub.publishAsync('outpost/controller/constructor/availability', 'online');
    await waitFor(() => dash.fleet.get('__proto__', clock.now()), 5000, 'the odd simulator');
    clock.advance(1000);
    const body = FleetState.parse(await (await fetch(`${dash.url}/api/status`)).json());
    expect(body.simulators.map((s) => s.id)).toContain('__proto__');
    expect(body.generators.map((g) => g.id)).toContain('constructor');
  });
});
