import { randomUUID } from 'node:crypto';
import type { SystemBus } from './dbus.js';
import { variant } from './dbus.js';

/** WiFi through NetworkManager on the system bus: scan, saved list, pre-configure (add), connect, forget. */

const NM = 'org.freedesktop.NetworkManager';
const NM_PATH = '/org/freedesktop/NetworkManager';
const SETTINGS_PATH = '/org/freedesktop/NetworkManager/Settings';
const DEVICE = 'org.freedesktop.NetworkManager.Device';
const WIRELESS = 'org.freedesktop.NetworkManager.Device.Wireless';
const AP = 'org.freedesktop.NetworkManager.AccessPoint';
const SETTINGS = 'org.freedesktop.NetworkManager.Settings';
const CONNECTION = 'org.freedesktop.NetworkManager.Settings.Connection';
const ACTIVE = 'org.freedesktop.NetworkManager.Connection.Active';
const NM_DEVICE_TYPE_WIFI = 2;

export class WifiError extends Error {
  constructor(
    readonly status: 404 | 422 | 503,
    message: string,
  ) {
    super(message);
    this.name = 'WifiError';
  }
}

export interface ScannedNetwork {
  ssid: string;
  bssid: string;
  strength: number;
  frequency_mhz: number;
  secured: boolean;
  saved: boolean;
}

export interface SavedNetwork {
  ssid: string;
  auto_connect: boolean;
  active: boolean;
}

export interface WifiResult {
  ssid: string;
  connection: string;
  active_connection?: string;
  auto_connect?: boolean;
}

const asText = (v: unknown) => Buffer.from(v as Uint8Array).toString('utf8');

export class NetworkManagerWifi {
  constructor(private readonly bus: SystemBus) {}

  async scan(): Promise<ScannedNetwork[]> {
    const dev = await this.wifiDevice();
    // NetworkManager refuses scans requested too often; the last results are still good.
    await this.bus.call(NM, dev, WIRELESS, 'RequestScan', 'a{sv}', [{}]).catch(() => undefined);
    const [aps] = (await this.bus.call(NM, dev, WIRELESS, 'GetAllAccessPoints')) as [string[]];
    const saved = new Set((await this.savedConnections()).map((c) => c.ssid));
    const best = new Map<string, ScannedNetwork>();
    for (const path of aps) {
      const p = await this.bus.getAll(NM, path, AP);
      const ssid = asText(p.Ssid);
      if (!ssid) continue; // hidden network
      const net: ScannedNetwork = {
        ssid,
        bssid: String(p.HwAddress ?? ''),
        strength: Number(p.Strength ?? 0),
        frequency_mhz: Number(p.Frequency ?? 0),
        secured: Number(p.Flags ?? 0) !== 0 || Number(p.WpaFlags ?? 0) !== 0 || Number(p.RsnFlags ?? 0) !== 0,
        saved: saved.has(ssid),
      };
      const prev = best.get(ssid);
      if (!prev || net.strength > prev.strength) best.set(ssid, net);
    }
    return [...best.values()].sort((a, b) => b.strength - a.strength);
  }

  /** Saved profiles, one entry per SSID (several profiles of one SSID count as one network). */
  async saved(): Promise<SavedNetwork[]> {
    const active = await this.activeProfiles();
    const bySsid = new Map<string, SavedNetwork>();
    for (const c of await this.savedConnections()) {
      const prev = bySsid.get(c.ssid);
      bySsid.set(c.ssid, {
        ssid: c.ssid,
        auto_connect: (prev?.auto_connect ?? false) || c.autoConnect,
        active: (prev?.active ?? false) || active.has(c.path),
      });
    }
    return [...bySsid.values()].sort((a, b) => a.ssid.localeCompare(b.ssid));
  }

  /** Deletes every saved profile of the SSID (and so disconnects from it if it is in use). */
  async forget(ssid: string): Promise<{ ssid: string; removed: number }> {
    const matches = (await this.savedConnections()).filter((c) => c.ssid === ssid);
    if (matches.length === 0) throw new WifiError(404, `No saved WiFi network: ${ssid}`);
    for (const c of matches) await this.bus.call(NM, c.path, CONNECTION, 'Delete');
    return { ssid, removed: matches.length };
  }

  /** Pre-configures a network without switching to it (unless NetworkManager auto-connects it). */
  async add(req: { ssid: string; password: string; auto_connect: boolean }): Promise<WifiResult> {
    checkPassword(req.password);
    const [path] = (await this.bus.call(NM, SETTINGS_PATH, SETTINGS, 'AddConnection', 'a{sa{sv}}', [
      connectionSettings(req.ssid, req.password, req.auto_connect),
    ])) as [string];
    return { ssid: req.ssid, connection: path, auto_connect: req.auto_connect };
  }

  /** Connects now to a visible network. */
  async connect(req: { ssid: string; password: string }): Promise<WifiResult> {
    checkPassword(req.password);
    const dev = await this.wifiDevice();
    const [aps] = (await this.bus.call(NM, dev, WIRELESS, 'GetAllAccessPoints')) as [string[]];
    let apPath: string | null = null;
    let best = -1;
    for (const path of aps) {
      const p = await this.bus.getAll(NM, path, AP);
      if (asText(p.Ssid) === req.ssid && Number(p.Strength ?? 0) > best) {
        apPath = path;
        best = Number(p.Strength ?? 0);
      }
    }
    if (!apPath) throw new WifiError(404, `WiFi network not found: ${req.ssid}`);
    const [conn, active] = (await this.bus.call(NM, NM_PATH, NM, 'AddAndActivateConnection', 'a{sa{sv}}oo', [
      connectionSettings(req.ssid, req.password, true),
      dev,
      apPath,
    ])) as [string, string];
    return { ssid: req.ssid, connection: conn, active_connection: active };
  }

  private async wifiDevice(): Promise<string> {
    let devices: string[];
    try {
      [devices] = (await this.bus.call(NM, NM_PATH, NM, 'GetDevices')) as [string[]];
    } catch (err) {
      throw new WifiError(503, `NetworkManager unavailable on the system bus: ${(err as Error).message}`);
    }
    for (const d of devices) {
      if (Number(await this.bus.getProp(NM, d, DEVICE, 'DeviceType')) === NM_DEVICE_TYPE_WIFI) return d;
    }
    throw new WifiError(503, 'No WiFi device managed by NetworkManager');
  }

  private async savedConnections(): Promise<Array<{ path: string; ssid: string; autoConnect: boolean }>> {
    const [paths] = (await this.bus.call(NM, SETTINGS_PATH, SETTINGS, 'ListConnections')) as [string[]];
    const out: Array<{ path: string; ssid: string; autoConnect: boolean }> = [];
    for (const path of paths) {
      const [s] = (await this.bus.call(NM, path, CONNECTION, 'GetSettings')) as [
        Record<string, Record<string, { value: unknown }>>,
      ];
      const raw = s['802-11-wireless']?.ssid?.value;
      // NetworkManager leaves autoconnect out of a profile when it has its default, true.
      const auto = s.connection?.autoconnect?.value;
      if (raw) out.push({ path, ssid: asText(raw), autoConnect: auto === undefined ? true : Boolean(auto) });
    }
    return out;
  }

  /** Settings paths of the profiles NetworkManager has active now. */
  private async activeProfiles(): Promise<Set<string>> {
    const actives = (await this.bus.getProp(NM, NM_PATH, NM, 'ActiveConnections')) as string[];
    const out = new Set<string>();
    for (const a of actives ?? []) {
      // An activation can end between the two calls.
      const conn = await this.bus.getProp(NM, a, ACTIVE, 'Connection').catch(() => null);
      if (conn) out.add(String(conn));
    }
    return out;
  }
}

function checkPassword(password: string): void {
  if (password !== '' && (password.length < 8 || password.length > 63)) {
    throw new WifiError(422, 'password: must be empty (open network) or 8-63 characters (WPA)');
  }
}

function connectionSettings(ssid: string, password: string, autoConnect: boolean) {
  const settings: Record<string, Record<string, unknown>> = {
    connection: {
      id: variant('s', ssid),
      uuid: variant('s', randomUUID()),
      type: variant('s', '802-11-wireless'),
      autoconnect: variant('b', autoConnect),
    },
    '802-11-wireless': {
      ssid: variant('ay', Buffer.from(ssid, 'utf8')),
      mode: variant('s', 'infrastructure'),
    },
    ipv4: { method: variant('s', 'auto') },
    ipv6: { method: variant('s', 'auto') },
  };
  if (password) {
    settings['802-11-wireless-security'] = {
      'key-mgmt': variant('s', 'wpa-psk'),
      psk: variant('s', password),
    };
  }
  return settings;
}
