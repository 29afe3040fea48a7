import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function freePort(): Promise<number> {
  const srv = createNetServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  await once(srv, 'close');
  return port;
}

/** A private bus that looks like the system bus, with python3-dbusmock templates on it. */
export async function startDbusMock(templates: string[]) {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const run = promisify(execFile);
  const dir = mkdtempSync(join(tmpdir(), 'relaynode-dbus-'));
  const sock = join(dir, 'bus');
  writeFileSync(
    join(dir, 'bus.conf'),
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path=${sock}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/><allow user="*"/></policy>
</busconfig>`,
  );
  const daemon = spawn(
    'dbus-daemon',
    [`--config-file=${join(dir, 'bus.conf')}`, '--nofork', '--print-address=1'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const address = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('dbus-daemon did not start')), 10_000);
    daemon.stdout?.once('data', (d: Buffer) => {
      clearTimeout(t);
      resolve(d.toString().trim());
    });
  });
  const env = { ...process.env, DBUS_SYSTEM_BUS_ADDRESS: address };
  const mocks = templates.map((t) =>
    spawn('/usr/bin/python3', ['-m', 'dbusmock', '--system', '--template', t], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const names: Record<string, string> = {
    networkmanager: 'org.freedesktop.NetworkManager',
    logind: 'org.freedesktop.login1',
  };
  for (const t of templates) {
    const until = Date.now() + 10_000;
    for (;;) {
      const { stdout } = await run(
        'gdbus',
        [
          'call',
          '--system',
          '--dest',
          'org.freedesktop.DBus',
          '--object-path',
          '/org/freedesktop/DBus',
          '--method',
          'org.freedesktop.DBus.ListNames',
        ],
        { env },
      );
      if (stdout.includes(`'${names[t]}'`)) break;
      if (Date.now() > until) throw new Error(`dbusmock template ${t} did not appear`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    address,
    /** gdbus call on the mock's org.freedesktop.DBus.Mock interface (or any method). */
    async call(dest: string, path: string, method: string, ...args: string[]): Promise<string> {
      const { stdout } = await run(
        'gdbus',
        ['call', '--system', '--dest', dest, '--object-path', path, '--method', method, ...args],
        { env },
      );
      return stdout.trim();
    },
    async close() {
      for (const m of mocks) m.kill('SIGTERM');
      daemon.kill('SIGTERM');
      await Promise.all(
        [...mocks, daemon].map((p) => (p.exitCode === null ? once(p, 'exit') : Promise.resolve())),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type DbusMock = Awaited<ReturnType<typeof startDbusMock>>;

const NM = 'org.freedesktop.NetworkManager';
const NM_PATH = '/org/freedesktop/NetworkManager';
const MOCK = 'org.freedesktop.DBus.Mock';
/** The WiFi device wifiDevice() adds; access points hang off it. */
export const MOCK_WLAN = '/org/freedesktop/NetworkManager/Devices/mock_wlan0';

/** One access point as dbusmock's NetworkManager template takes it (3 = WPA2 personal; 5400 Mbit/s). */
export interface MockAccessPoint {
  name: string;
  ssid: string;
  bssid: string;
  frequencyMhz: number;
  strength: number;
  /** NM_802_11_AP_FLAGS: '0x100' for a secured network, '0' for an open one. */
  flags: string;
}

/** A wlan0 device on the mock NetworkManager with the given access points in range. */
export async function wifiDevice(mock: DbusMock, aps: MockAccessPoint[]): Promise<void> {
  await mock.call(NM, NM_PATH, `${MOCK}.AddWiFiDevice`, 'mock_wlan0', 'wlan0', '100');
  for (const ap of aps) await accessPoint(mock, ap);
}

export async function accessPoint(mock: DbusMock, ap: MockAccessPoint): Promise<void> {
  await mock.call(
    NM,
    NM_PATH,
    `${MOCK}.AddAccessPoint`,
    MOCK_WLAN,
    ap.name,
    ap.ssid,
    ap.bssid,
    '3',
    String(ap.frequencyMhz),
    '5400',
    String(ap.strength),
    ap.flags,
  );
}

/**
 * A broker of our own on a free loopback port: the embedded @outpost/broker when it is built,
 * otherwise a Mosquitto process.
 */
export async function startTestBroker(): Promise<{ url: string; kind: string; close(): Promise<void> }> {
  const name = '@outpost/broker';
  // RELAYNODE_TEST_BROKER=mosquitto runs the same tests against a foreign broker.
  if (process.env.RELAYNODE_TEST_BROKER !== 'mosquitto') {
    try {
      const mod = (await import(name)) as {
        startBroker: (o: object) => Promise<{ url: string; close(): Promise<void> }>;
      };
      const b = await mod.startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
      return { url: b.url, kind: 'aedes', close: () => b.close() };
    } catch {
      // fall through to Mosquitto
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'relaynode-mosq-'));
  const port = await freePort();
  writeFileSync(join(dir, 'm.conf'), `listener ${port} 127.0.0.1\nallow_anonymous true\n`);
  const proc = spawn('mosquitto', ['-c', join(dir, 'm.conf')], { stdio: 'ignore' });
  const { reachable } = await import('@outpost/runtime/testing');
  const until = Date.now() + 5_000;
  while (!(await reachable('127.0.0.1', port, 200))) {
    if (Date.now() > until) throw new Error('mosquitto did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    kind: 'mosquitto',
    async close() {
      proc.kill('SIGTERM');
      if (proc.exitCode === null) await once(proc, 'exit');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
