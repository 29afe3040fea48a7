import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemBus } from '../../src/system/dbus.js';
import { LogindPower } from '../../src/system/power.js';
import { NetworkManagerWifi, WifiError } from '../../src/system/wifi.js';
import { startDbusMock, wifiDevice } from '../peers.js';
import { startTestNode } from '../service-helpers.js';

const NM = 'org.freedesktop.NetworkManager';
const MOCK = 'org.freedesktop.DBus.Mock';

describe('WiFi and power over D-Bus (python3-dbusmock on a private bus)', () => {
  let mock: Awaited<ReturnType<typeof startDbusMock>>;
  let bus: SystemBus;
  let wifi: NetworkManagerWifi;

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
        strength: 60,
        flags: '0',
      },
    ]);
    bus = new SystemBus(mock.address);
    wifi = new NetworkManagerWifi(bus);
  }, 20_000);

  afterAll(async () => {
    bus?.close();
    await mock?.close();
  });

  it('scan lists each SSID once, strongest access point, strongest first', async () => {
    const nets = await wifi.scan();
    expect(nets).toEqual([
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
        strength: 60,
        frequency_mhz: 2437,
        secured: false,
        saved: false,
      },
    ]);
  });

  it('add pre-configures a network in NetworkManager settings', async () => {
    const res = await wifi.add({ ssid: 'FarmNet', password: 'correct horse', auto_connect: false });
    expect(res.connection).toMatch(/^\/org\/freedesktop\/NetworkManager\/Settings\//);
    const settings = await mock.call(
      NM,
      res.connection,
      'org.freedesktop.NetworkManager.Settings.Connection.GetSettings',
    );
    expect(settings).toContain("'id': <'FarmNet'>");
    expect(settings).toContain("'psk': <'correct horse'>");
    expect(settings).toContain("'autoconnect': <false>");
  });

  it('connect activates a visible network; an absent one is 404; a short password 422', async () => {
    const res = await wifi.connect({ ssid: 'ShedWifi', password: 'longenough' });
    expect(res.active_connection).toMatch(/ActiveConnection/);
    const active = await mock.call(
      NM,
      '/org/freedesktop/NetworkManager',
      'org.freedesktop.DBus.Properties.Get',
      NM,
      'ActiveConnections',
    );
    expect(active).toContain(res.active_connection);
    expect((await wifi.scan()).find((n) => n.ssid === 'ShedWifi')?.saved).toBe(true);
    await expect(wifi.connect({ ssid: 'Nowhere', password: '' })).rejects.toMatchObject({ status: 404 });
    await expect(wifi.connect({ ssid: 'ShedWifi', password: 'short' })).rejects.toBeInstanceOf(WifiError);
  });

  it('lists saved networks with the one in use, and forgets a network by SSID', async () => {
    await wifi.add({ ssid: 'Silo', password: 'grain-store-1', auto_connect: false });
    const saved = await wifi.saved();
    expect(saved).toContainEqual({ ssid: 'Silo', auto_connect: false, active: false });
    expect(saved).toContainEqual({ ssid: 'ShedWifi', auto_connect: true, active: true });
    expect(await wifi.forget('Silo')).toEqual({ ssid: 'Silo', removed: 1 });
    expect((await wifi.saved()).map((n) => n.ssid)).not.toContain('Silo');
    await expect(wifi.forget('Silo')).rejects.toMatchObject({ status: 404 });
  });

  it('reboot and power-off go to logind', async () => {
    const power = new LogindPower(bus);
    await power.reboot();
    await power.powerOff();
    const calls = await mock.call('org.freedesktop.login1', '/org/freedesktop/login1', `${MOCK}.GetCalls`);
    expect(calls).toMatch(/'Reboot', \[<false>\]/);
    expect(calls).toMatch(/'PowerOff', \[<false>\]/);
  });

  it('REST: scan, add and connect through the gateway', async () => {
    const n = await startTestNode({ systemBusAddress: mock.address });
    try {
      const scan = await n.api('GET', '/api/system/wifi/scan');
      expect(scan.status).toBe(200);
      expect((scan.body.networks as Array<{ ssid: string }>).map((x) => x.ssid)).toEqual([
        'ShedWifi',
        'OpenCafe',
      ]);
      const add = await n.api('POST', '/api/system/wifi/add', {
        ssid: 'Barn',
        password: 'hay-bale-42',
        auto_connect: true,
      });
      expect(add.status).toBe(200);
      expect(add.body).toMatchObject({ ssid: 'Barn', auto_connect: true });
      const bad = await n.api('POST', '/api/system/wifi/add', { ssid: '', password: 'x' });
      expect(bad.status).toBe(422);
      const missing = await n.api('POST', '/api/system/wifi/connect', { ssid: 'Nowhere', password: '' });
      expect(missing).toEqual({ status: 404, body: { detail: 'WiFi network not found: Nowhere' } });
      const ok = await n.api('POST', '/api/system/wifi/connect', { ssid: 'OpenCafe', password: '' });
      expect(ok.status).toBe(200);
      expect(ok.body.active_connection).toMatch(/ActiveConnection/);
    } finally {
      await n.stop();
    }
  });

  it('a missing system bus fails fast with 503, it does not hang the request', async () => {
    const n = await startTestNode({ systemBusAddress: 'unix:path=/nonexistent/relaynode-bus' });
    try {
      const t0 = Date.now();
      const r = await n.api('GET', '/api/system/wifi/scan');
      expect(r.status).toBe(503);
      expect(r.body.detail).toMatch(/unavailable/);
      expect(Date.now() - t0).toBeLessThan(2_000);
    } finally {
      await n.stop();
    }
  });
});
