import type { RunningBroker } from '@outpost/broker';
import { createMqtt, type OutpostMqtt, type RunningServer, serveApp } from '@outpost/runtime';
import mqtt from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  leased,
  LogindPower,
  startDbusMock,
  startTestNode,
  SystemBus,
  wifiDevice,
} from '@outpost/relay-node/testing';
import { RelaynodeAdmin } from '../../src/bus/relaynode-admin.js';
import type { Database } from '../../src/db/connection.js';
import { buildGateway } from '../../src/gateway/gateway.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { embeddedBroker } from '../helpers/stack.js';

/**
 * Relay node WiFi and power administration end to end: controller REST (a real socket) → MQTT
 * request/response over the embedded broker → relay node in-process → D-Bus, where python3-dbusmock's
 * NetworkManager and logind templates stand in for the Pi's.
 */

const NM = 'org.freedesktop.NetworkManager';
const NM_PATH = '/org/freedesktop/NetworkManager';
const SETTINGS_PATH = '/org/freedesktop/NetworkManager/Settings';
const LOGIND = 'org.freedesktop.login1';
const LOGIND_PATH = '/org/freedesktop/login1';
const MOCK = 'org.freedesktop.DBus.Mock';
const PASSWORD = 'barn-door-secret-4711';
const CONNECT_PASSWORD = 'shed-wifi-secret-0815';

let mock: Awaited<ReturnType<typeof startDbusMock>>;
let broker: RunningBroker;
let node: Awaited<ReturnType<typeof startTestNode>>;
let powerBus: SystemBus;
let bus: OutpostMqtt;
let tdb: TestDatabase;
let database: Database;
let t: TestApp;
let srv: RunningServer;
/** Every log line of the controller and the relay node, at every level. */
const logLines: string[] = [];

const capture = (name: string) =>
  pino({ level: 'trace', name }, { write: (line: string) => void logLines.push(line) });

async function call(method: string, path: string, body?: unknown, token: string | null = t.token) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${srv.url}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers freely
  return { status: res.status, text, body: (text ? JSON.parse(text) : null) as any };
}

const listConnections = () => mock.call(NM, SETTINGS_PATH, `${NM}.Settings.ListConnections`);
const logindCalls = () => mock.call(LOGIND, LOGIND_PATH, `${MOCK}.GetCalls`);
const audit = async () => (await call('GET', '/api/audit?limit=50')).body as Array<Record<string, unknown>>;

/** The node's relay, switched as the controller's heartbeat lease would switch it. */
async function nodeRelay(on: boolean) {
  const res = await node.api(
    'POST',
    '/api/heartbeat',
    leased({ heartbeat_interval: 10, armed: on, relay_on: on }),
  );
  expect(res.status).toBe(200);
  expect((await node.api('GET', '/api/relay/state')).body.relay_on).toBe(on);
}

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
      ssid: 'ShedWifi',
      bssid: '00:11:22:33:44:66',
      frequencyMhz: 5180,
      strength: 40,
      flags: '0x100',
    },
    {
      name: 'ap3',
      ssid: 'OpenCafe',
      bssid: '00:11:22:33:44:77',
      frequencyMhz: 2437,
      strength: 55,
      flags: '0',
    },
  ]);
  broker = await embeddedBroker();
  const mqttConfig = { url: broker.url, username: undefined, password: undefined, prefix: 'outpost' };
  // As on a Pi: reboot and power-off go to logind (mock hardware alone would only record them).
  powerBus = new SystemBus(mock.address);
  node = await startTestNode({
    systemBusAddress: mock.address,
    power: new LogindPower(powerBus),
    config: { mqtt: mqttConfig },
    logger: capture('relaynode'),
  });
  await node.bus?.waitConnected(5_000);
  tdb = await testDatabase();
  database = await tdb.open();
  bus = await createMqtt({ url: broker.url, service: 'controller', id: 'main', logger: capture('mqtt') });
  await bus.waitConnected(5_000);
  t = await testApp(database, {
    gateway: { relaynode: new RelaynodeAdmin(bus, 'main', 10_000), logger: capture('controller') },
  });
  srv = await serveApp(t.app, { port: 0, host: '127.0.0.1' });
}, 90_000);

afterAll(async () => {
  await srv?.close();
  await t?.close();
  await bus?.close();
  await node?.stop();
  powerBus?.close();
  await broker?.close();
  await database?.close();
  await tdb?.cleanup();
  await mock?.close();
});

beforeEach(async () => {
  await mock.call(LOGIND, LOGIND_PATH, `${MOCK}.ClearCalls`);
});

describe('relay node WiFi through the controller', () => {
  it('scans: one entry per SSID with its strongest signal, strongest first', async () => {
    const res = await call('GET', '/api/relaynode/wifi/scan');
    expect(res.status).toBe(200);
    expect(res.body.networks).toEqual([
      {
        ssid: 'ShedWifi',
        bssid: '00:11:22:33:44:55',
        strength: 80,
        frequency_mhz: 2412,
        secured: true,
        saved: false,
      },
      {
        ssid: 'OpenCafe',
        bssid: '00:11:22:33:44:77',
        strength: 55,
        frequency_mhz: 2437,
        secured: false,
        saved: false,
      },
    ]);
  });

  it('adds a network: NetworkManager holds it with its key; the answer, list and audit never show the password', async () => {
    const res = await call('POST', '/api/relaynode/wifi/add', {
      ssid: 'Barn',
      password: PASSWORD,
      auto_connect: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ssid: 'Barn',
      connection: expect.stringMatching(/Settings\//),
      auto_connect: false,
    });
    expect(res.text).not.toContain(PASSWORD);
    const settings = await mock.call(NM, res.body.connection, `${NM}.Settings.Connection.GetSettings`);
    expect(settings).toContain("'id': <'Barn'>");
    expect(settings).toContain(`'psk': <'${PASSWORD}'>`);

    const list = await call('GET', '/api/relaynode/wifi');
    expect(list.status).toBe(200);
    expect(list.body.networks).toContainEqual({ ssid: 'Barn', auto_connect: false, active: false });
    expect(list.text).not.toContain(PASSWORD);

    const entry = (await audit()).find((e) => e.action === 'relaynode.wifi_add');
    expect(entry).toMatchObject({ who: 'admin', details: { ssid: 'Barn', auto_connect: false } });
    expect(JSON.stringify(await audit())).not.toContain(PASSWORD);
  });

  it('connects to a visible network: NetworkManager activates it and the list shows it active', async () => {
    const res = await call('POST', '/api/relaynode/wifi/connect', {
      ssid: 'ShedWifi',
      password: CONNECT_PASSWORD,
    });
    expect(res.status).toBe(200);
    expect(res.body.active_connection).toMatch(/ActiveConnection/);
    expect(res.text).not.toContain(CONNECT_PASSWORD);
    const active = await mock.call(
      NM,
      NM_PATH,
      'org.freedesktop.DBus.Properties.Get',
      NM,
      'ActiveConnections',
    );
    expect(active).toContain(res.body.active_connection);
    const saved = (await call('GET', '/api/relaynode/wifi')).body.networks;
    expect(saved).toContainEqual({ ssid: 'ShedWifi', auto_connect: true, active: true });
    expect(saved).toContainEqual({ ssid: 'Barn', auto_connect: false, active: false });
    const scan = await call('GET', '/api/relaynode/wifi/scan');
    expect(scan.body.networks.find((n: { ssid: string }) => n.ssid === 'ShedWifi').saved).toBe(true);
    expect((await audit()).find((e) => e.action === 'relaynode.wifi_connect')?.details).toEqual({
      ssid: 'ShedWifi',
    });
  });

  it('refuses an absent network (404) and a bad password or SSID (422), changing nothing', async () => {
    const before = await listConnections();
    const auditBefore = (await audit()).length;
    const absent = await call('POST', '/api/relaynode/wifi/connect', { ssid: 'Nowhere', password: '' });
    expect(absent).toMatchObject({
      status: 404,
      body: { detail: 'Relay node refused: WiFi network not found: Nowhere' },
    });
    const short = await call('POST', '/api/relaynode/wifi/add', {
      ssid: 'Barn2',
      password: 'short',
      auto_connect: true,
    });
    expect(short.status).toBe(422);
    expect(short.body.detail).toContain('8-63 characters');
    expect(short.text).not.toContain('short"');
    const noSsid = await call('POST', '/api/relaynode/wifi/add', { ssid: '', password: PASSWORD });
    expect(noSsid.status).toBe(422);
    expect(noSsid.body.detail).toContain('ssid');
    expect(noSsid.text).not.toContain(PASSWORD);
    const extra = await call('POST', '/api/relaynode/wifi/forget', { ssid: 'Barn', everything: true });
    expect(extra.status).toBe(422);
    const notJson = await call('POST', '/api/relaynode/wifi/add', '{"ssid": ');
    expect(notJson.status).toBe(400);
    expect(await listConnections()).toBe(before);
    expect((await audit()).length).toBe(auditBefore);
  });

  it('forgets a saved network: its profile is gone from NetworkManager; forgetting it again is 404', async () => {
    const added = await call('POST', '/api/relaynode/wifi/add', {
      ssid: 'Paddock',
      password: PASSWORD,
      auto_connect: true,
    });
    expect(added.status).toBe(200);
    expect(await listConnections()).toContain(added.body.connection);
    const res = await call('POST', '/api/relaynode/wifi/forget', { ssid: 'Paddock' });
    expect(res).toMatchObject({ status: 200, body: { ssid: 'Paddock', removed: 1 } });
    expect(await listConnections()).not.toContain(added.body.connection);
    const names = (await call('GET', '/api/relaynode/wifi')).body.networks.map(
      (n: { ssid: string }) => n.ssid,
    );
    expect(names).not.toContain('Paddock');
    const again = await call('POST', '/api/relaynode/wifi/forget', { ssid: 'Paddock' });
    expect(again).toMatchObject({
      status: 404,
      body: { detail: 'Relay node refused: No saved WiFi network: Paddock' },
    });
    expect((await audit()).find((e) => e.action === 'relaynode.wifi_forget')?.details).toEqual({
      ssid: 'Paddock',
    });
  });
});

describe('relay node reboot and shutdown through the controller', () => {
  it('reboot and shutdown reach logind on an explicit confirmation, and are audited', async () => {
    const unconfirmed = await call('POST', '/api/relaynode/reboot', {});
    expect(unconfirmed.status).toBe(422);
    expect(await logindCalls()).not.toMatch(/Reboot/);

    const reboot = await call('POST', '/api/relaynode/reboot', { confirm: true });
    expect(reboot).toMatchObject({ status: 200, body: { status: 'rebooting' } });
    expect(await logindCalls()).toMatch(/'Reboot', \[<false>\]/);
    const shutdown = await call('POST', '/api/relaynode/shutdown', { confirm: true });
    expect(shutdown).toMatchObject({ status: 200, body: { status: 'shutting_down' } });
    expect(await logindCalls()).toMatch(/'PowerOff', \[<false>\]/);
    const actions = (await audit()).map((e) => e.action);
    expect(actions).toContain('relaynode.reboot');
    expect(actions).toContain('relaynode.shutdown');
  });

  it('refuses both with 409 while the relay is ON; nothing reaches logind and nothing is audited', async () => {
    await nodeRelay(true);
    try {
      const auditBefore = (await audit()).length;
      for (const action of ['reboot', 'shutdown']) {
        const res = await call('POST', `/api/relaynode/${action}`, { confirm: true });
        expect(res.status).toBe(409);
        expect(res.body.detail).toBe(
          `Relay node refused: Refusing to ${action} while the relay is ON (generator running); turn it off first`,
        );
      }
      expect(await logindCalls()).not.toMatch(/Reboot|PowerOff/);
      expect((await audit()).length).toBe(auditBefore);
      expect((await node.api('GET', '/api/relay/state')).body.relay_on).toBe(true);
    } finally {
      await nodeRelay(false);
    }
    const res = await call('POST', '/api/relaynode/reboot', { confirm: true });
    expect(res.status).toBe(200);
  });
});

describe('relay node administration: access, secrecy, documentation', () => {
  const MUTATING: Array<[string, unknown]> = [
    ['/api/relaynode/wifi/add', { ssid: 'Intruder', password: PASSWORD, auto_connect: true }],
    ['/api/relaynode/wifi/connect', { ssid: 'ShedWifi', password: PASSWORD }],
    ['/api/relaynode/wifi/forget', { ssid: 'Barn' }],
    ['/api/relaynode/reboot', { confirm: true }],
    ['/api/relaynode/shutdown', { confirm: true }],
  ];

  it('answers 401 without a token or with a bad one, and acts on nothing', async () => {
    const before = await listConnections();
    for (const [path, body] of MUTATING) {
      for (const token of [null, 'not-a-token']) {
        const res = await call('POST', path, body, token);
        expect(res.status, `${path} ${token}`).toBe(401);
      }
    }
    for (const path of ['/api/relaynode/wifi', '/api/relaynode/wifi/scan', '/api/relaynode/system']) {
      expect((await call('GET', path, undefined, null)).status).toBe(401);
    }
    expect(await listConnections()).toBe(before);
    expect(await logindCalls()).not.toMatch(/Reboot|PowerOff/);
  });

  it('answers 403 to a client off the allowlist, even with a valid token', async () => {
    const gated = buildGateway(t.svc, {
      logger: pino({ level: 'silent' }),
      allowedIps: '10.9.9.0/24',
      relaynode: new RelaynodeAdmin(bus, 'main', 10_000),
    });
    const gatedSrv = await serveApp(gated, { port: 0, host: '127.0.0.1' });
    try {
      for (const [path, body] of MUTATING) {
        const res = await fetch(`${gatedSrv.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status, path).toBe(403);
      }
    } finally {
      await gatedSrv.close();
    }
    expect(await logindCalls()).not.toMatch(/Reboot|PowerOff/);
  });

  it('never logs a WiFi password, and never leaves one retained on the broker', async () => {
    expect(logLines.length).toBeGreaterThan(0);
    const logs = logLines.join('\n');
    expect(logs).not.toContain(PASSWORD);
    expect(logs).not.toContain(CONNECT_PASSWORD);
    // A client arriving now gets every retained message under the prefix at once.
    const watcher = await mqtt.connectAsync(broker.url, { clientId: `retained-${process.pid}` });
    const seen: string[] = [];
    watcher.on('message', (topic, payload) => seen.push(`${topic} ${payload.toString()}`));
    await watcher.subscribeAsync('outpost/#', { qos: 1 });
    await new Promise((r) => setTimeout(r, 500));
    await watcher.endAsync();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.join('\n')).not.toContain(PASSWORD);
    expect(seen.join('\n')).not.toContain(CONNECT_PASSWORD);
  });

  it('documents every operation with the bearer scheme', async () => {
    const doc = (await call('GET', '/api/openapi.json', undefined, null)).body as {
      paths: Record<string, Record<string, { security?: unknown; requestBody?: unknown }>>;
    };
    const ops = [
      ['get', '/api/relaynode/wifi'],
      ['get', '/api/relaynode/wifi/scan'],
      ['post', '/api/relaynode/wifi/add'],
      ['post', '/api/relaynode/wifi/connect'],
      ['post', '/api/relaynode/wifi/forget'],
      ['post', '/api/relaynode/reboot'],
      ['post', '/api/relaynode/shutdown'],
    ] as const;
    for (const [method, path] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op?.security).toEqual([{ bearer: [] }]);
      if (method === 'post') expect(op?.requestBody).toBeDefined();
    }
  });
});
