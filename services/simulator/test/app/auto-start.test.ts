import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, startMain } from '../helpers/main-process.js';
import { freeTcpPort, freeUdpPort, sendUdp, UdpCapture } from '../helpers/net.js';
import { tempDir, waitFor } from '../helpers/peers.js';
import { Api, BASE_ENV, startTestSim, TEST_USER, type TestSim } from '../helpers/sim.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sim(env: Record<string, string>, clock = new ManualClock()): Promise<TestSim> {
  const s = await startTestSim(env, { clock });
  cleanups.push(() => s.close());
  return s;
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built service; resolves when it exits or when `until` matches its stdout (then kills it). */
function runMain(env: Record<string, string>, until?: RegExp): Promise<Exit> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} missing: build first (npx tsc -p tsconfig.build.json)`);
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(MQTT_|AUTO_START_|PASSWORD|USERNAME|BYPASS_AUTH|PORT|SIMULATOR_PORT)/.test(k),
    ),
  );
  const child = spawn(process.execPath, [MAIN], {
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
    child.stdout.on('data', (d) => {
      stdout += d;
      if (until?.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('AUTO_START_* at boot', () => {
  it('a sender with no target stays up and stopped, says why in one log line, /health and /api/status', async () => {
    const main = startMain({ ...BASE_ENV, LOG_LEVEL: 'info', AUTO_START_MODE: 'sender' });
    cleanups.push(() => main.stop());
    const url = await main.url();
    const reason =
      'AUTO_START_MODE=sender cannot start: Enter target IP address for NMEA output (set AUTO_START_TARGET_IP)';
    // The reason is for a signed-in operator; a stranger sees only that the service is up.
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });
    const api = new Api(url);
    await api.login();
    const health = (await api.get('/health')).body;
    expect(health).toMatchObject({
      status: 'healthy',
      running: false,
      auto_start: { mode: 'sender', state: 'not started', reason },
    });
    expect((await api.get('/api/status')).body).toMatchObject({
      running: false,
      auto_start: { mode: 'sender', state: 'not started', reason },
    });
    // Still up a while later: no exit, so no restart loop under a supervisor.
    await new Promise((r) => setTimeout(r, 1500));
    expect(main.proc.exitCode).toBeNull();
    expect(main.logs().filter((l) => String(l.msg).includes('cannot start'))).toEqual([
      expect.objectContaining({ level: 50, msg: `${reason}; staying up and stopped` }),
    ]);
    expect(main.stderr()).toBe('');
  }, 20_000);

  it('stand-alone with only the spec variables runs at DEFAULT_LAT/DEFAULT_LON/DEFAULT_ALT_FT', async () => {
    const efb = await UdpCapture.open('127.0.0.1');
    cleanups.push(() => efb.close());
    const main = startMain({
      ...BASE_ENV,
      AUTO_START_MODE: 'standalone',
      AUTO_START_EFB_ENABLED: 'true',
      AUTO_START_EFB_TARGET_IPS: '127.0.0.1',
      AUTO_START_EFB_SIM_NAME: 'Rig1',
      DEFAULT_LAT: '46.123456',
      DEFAULT_LON: '-121.654321',
      DEFAULT_ALT_FT: '3280.84',
      EFB_PORT: String(efb.port),
    });
    cleanups.push(() => main.stop());
    const url = await main.url();
    await waitFor(() => efb.received.length > 0, 8000);
    // XGPS{name},{lon},{lat},{alt_m},{track},{speed_ms}
    const [name, lon, lat, altM] = efb.received[0]!.text.split(',');
    expect(name).toBe('XGPSRig1');
    expect(Number(lat)).toBeCloseTo(46.123456, 6);
    expect(Number(lon)).toBeCloseTo(-121.654321, 6);
    expect(Number(altM)).toBeCloseTo(1000, 0);
    const operator = new Api(url);
    await operator.login();
    const health = (await operator.get('/health')).body;
    expect(health).toMatchObject({
      running: true,
      auto_start: { mode: 'standalone', state: 'running', reason: null },
    });
  }, 20_000);

  it('a bad variable is named in one line and the process exits 1', async () => {
    const r = await runMain({ ...BASE_ENV, AUTO_START_MODE: 'bogus' });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^Invalid environment variable AUTO_START_MODE: /);
  });

  it('without PASSWORD one is generated, printed once and kept under DATA_DIR: the same login works after a restart', async () => {
    const dir = tempDir('sim-password-');
    cleanups.push(() => dir.remove());
    const { PASSWORD: _p, ...env } = BASE_ENV;
    const first = startMain({ ...env, DATA_DIR: dir.path });
    const url1 = await first.url();
    const printed =
      /log in as "pilot" with the generated password: ([A-Za-z0-9_-]{16}) \(kept in (.+)\)\n/.exec(
        first.stdout(),
      );
    expect(printed).not.toBeNull();
    const password = printed![1]!;
    expect(printed![2]).toBe(join(dir.path, 'simulator-password'));
    expect(statSync(join(dir.path, 'simulator-password')).mode & 0o777).toBe(0o600);
    expect((await new Api(url1).login(TEST_USER, password)).status).toBe(200);
    await first.stop();

    const second = startMain({ ...env, DATA_DIR: dir.path });
    cleanups.push(() => second.stop());
    const url2 = await second.url();
    expect((await new Api(url2).login(TEST_USER, password)).status).toBe(200);
    expect((await new Api(url2).login(TEST_USER, 'not-the-password')).status).toBe(401);
    expect(second.stdout()).not.toContain(password);
    expect(second.stdout()).not.toContain('generated password:');
  }, 30_000);

  it('BYPASS_AUTH logs a loud warning', async () => {
    const r = await runMain({ ...BASE_ENV, LOG_LEVEL: 'info', BYPASS_AUTH: 'true' }, /simulator listening/);
    expect(r.stdout).toMatch(/BYPASS_AUTH=true/);
  });

  it('receiver over TCP starts at boot and ingests positions', async () => {
    const port = await freeTcpPort();
    const s = await sim({
      AUTO_START_MODE: 'receiver',
      AUTO_START_PROTOCOL: 'tcp',
      AUTO_START_LISTEN_PORT: String(port),
    });
    expect(s.service.running).toBe(true);
    const c = createConnection({ host: '127.0.0.1', port });
    cleanups.push(() => {
      c.destroy();
    });
    c.write('$CYGNUS:lat=40.5&lon=-105.25&heading=180&magvar=8&alt=9000&airspeed=110\n');
    await waitFor(() => s.service.status().lat === 40.5);
    expect(s.service.status()).toMatchObject({ mode: 'receiver', lon: -105.25, altitude_ft: 9000 });
  });

  it('rebroadcaster with EFB targets and UDP retransmit from the environment', async () => {
    const listen = await freeUdpPort();
    const efbPort = await freeUdpPort();
    const efb = await UdpCapture.open('127.0.0.1', efbPort);
    const retx = await UdpCapture.open('127.0.0.1');
    cleanups.push(
      () => efb.close(),
      () => retx.close(),
    );
    const s = await sim({
      AUTO_START_MODE: 'rebroadcaster',
      AUTO_START_LISTEN_PORT: String(listen),
      AUTO_START_EFB_ENABLED: 'true',
      AUTO_START_EFB_TARGET_IPS: '127.0.0.1, 127.0.0.1-1',
      EFB_SIM_NAME: 'FromEnv',
      EFB_PORT: String(efbPort),
      AUTO_START_UDP_RETRANSMIT: 'true',
      AUTO_START_UDP_RETRANSMIT_IP: '127.0.0.1',
      AUTO_START_UDP_RETRANSMIT_PORT: String(retx.port),
    });
    expect(s.service.running).toBe(true);
    await sendUdp(listen, JSON.stringify({ lat: 1.5, lon: 2.5, alt_ft: 100, speed_kts: 10, heading: 90 }));
    await waitFor(() => retx.received.length === 1);
    (s.clock as ManualClock).advance(1000);
    await waitFor(() => efb.received.length === 1);
    expect(efb.received[0]!.text).toMatch(/^XGPSFromEnv,2\.500000,1\.500000,30\.5,90\.00,5\.1$/);
  });

  it('a server error at boot leaves it stopped with the banner, and it retries until the port is free', async () => {
    const taken = createSocket('udp4');
    await new Promise<void>((r) => taken.bind(0, '127.0.0.1', r));
    const port = taken.address().port;
    const clock = new ManualClock();
    const s = await sim({ AUTO_START_MODE: 'receiver', AUTO_START_LISTEN_PORT: String(port) }, clock);
    expect(s.service.status()).toMatchObject({
      running: false,
      banner: `Address already in use: UDP port ${port} is taken`,
    });
    await new Promise<void>((r) => taken.close(() => r()));
    clock.advance(10_000);
    await waitFor(() => s.service.running);
    expect(s.service.status().banner).toBeNull();
  });

  it('an unknown AUTO_START_AIRPORT leaves it up and stopped, with the reason in the status', async () => {
    const s = await sim({ AUTO_START_MODE: 'standalone', AUTO_START_AIRPORT: 'ZZZZ' });
    expect(s.service.status()).toMatchObject({
      running: false,
      auto_start: {
        state: 'not started',
        reason:
          'AUTO_START_MODE=standalone cannot start: AUTO_START_AIRPORT ZZZZ is not in the airport database',
      },
    });
  });

  it('an AUTO_START_USB_DEVICE outside /dev leaves it up and stopped, with the reason in /health', async () => {
    const s = await sim({
      AUTO_START_MODE: 'standalone',
      AUTO_START_USB_ENABLED: 'true',
      AUTO_START_USB_DEVICE: '/dev/../etc/shadow',
    });
    const health = (await s.api.get('/health')).body;
    expect(health).toMatchObject({
      running: false,
      auto_start: {
        state: 'not started',
        reason: 'AUTO_START_MODE=standalone cannot start: AUTO_START_USB_DEVICE must be a /dev/ path',
      },
    });
  });
});
