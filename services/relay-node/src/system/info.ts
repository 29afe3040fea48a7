import { loadavg } from 'node:os';

/** GET /api/system: CPU, RAM, disk, network, and the SoC temperature where the board reports one. */
export interface SystemInfo {
  hostname: string;
  platform: string;
  model: string | null;
  uptime_seconds: number;
  cpu: { cores: number; load_percent: number; load_average: number[]; temperature_c: number | null };
  memory: { total_bytes: number; used_bytes: number; available_bytes: number; percent: number };
  disk: Array<{ mount: string; size_bytes: number; used_bytes: number; percent: number }>;
  network: Array<{ iface: string; ip4: string; ip6: string; mac: string; type: string; up: boolean }>;
  wifi: { ssid: string | null; signal_percent: number | null } | null;
}

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

export async function readSystemInfo(): Promise<SystemInfo> {
  // Loaded on first use: it is large and only this endpoint needs it.
  const { default: si } = await import('systeminformation');
  const [os, load, mem, fs, ifaces, temp, sys, conns] = await Promise.all([
    si.osInfo(),
    si.currentLoad(),
    si.mem(),
    si.fsSize().catch(() => []),
    si.networkInterfaces().catch(() => []),
    si.cpuTemperature().catch(() => ({ main: null })),
    si.system().catch(() => ({ model: '' })),
    si.wifiConnections().catch(() => []),
  ]);
  const list = Array.isArray(ifaces) ? ifaces : [ifaces];
  const wifi = conns[0];
  const t = typeof temp.main === 'number' && Number.isFinite(temp.main) && temp.main > -50 ? temp.main : null;
  return {
    hostname: os.hostname,
    platform: `${os.distro} ${os.release} (${os.arch})`,
    model: sys.model || null,
    uptime_seconds: Math.floor(si.time().uptime),
    cpu: {
      cores: load.cpus.length,
      load_percent: round(load.currentLoad),
      load_average: loadavg().map((v) => round(v, 2)),
      temperature_c: t === null ? null : round(t),
    },
    memory: {
      total_bytes: mem.total,
      used_bytes: mem.total - mem.available,
      available_bytes: mem.available,
      percent: round(((mem.total - mem.available) / mem.total) * 100),
    },
    disk: fs.map((d) => ({
      mount: d.mount,
      size_bytes: d.size,
      used_bytes: d.used,
      percent: round(d.use ?? 0),
    })),
    network: list
      .filter((n) => !n.internal)
      .map((n) => ({
        iface: n.iface,
        ip4: n.ip4,
        ip6: n.ip6,
        mac: n.mac,
        type: n.type,
        up: n.operstate === 'up',
      })),
    wifi: wifi ? { ssid: wifi.ssid || null, signal_percent: wifi.quality ?? null } : null,
  };
}
