import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { AutoStartConfigError } from '../../src/app/auto-start.js';
import { freeTcpPort, freeUdpPort, sendUdp, UdpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { BASE_ENV, startTestSim, type TestSim } from '../helpers/sim.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

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
  it('an invalid combination stops the process with one clear message', async () => {
    const r = await runMain({ ...BASE_ENV, AUTO_START_MODE: 'standalone' });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'AUTO_START_MODE=standalone cannot start: Select an airport (set AUTO_START_AIRPORT); Select at least one output (USB or EFB) (set AUTO_START_USB_ENABLED or AUTO_START_EFB_ENABLED)',
    ]);
  });

  it('a bad variable is named in one line and the process exits 1', async () => {
    const r = await runMain({ ...BASE_ENV, AUTO_START_MODE: 'bogus' });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^Invalid environment variable AUTO_START_MODE: /);
  });

  it('without PASSWORD a random one is printed once; BYPASS_AUTH logs a loud warning', async () => {
    const { PASSWORD: _p, ...env } = BASE_ENV;
    const r = await runMain({ ...env, LOG_LEVEL: 'info', BYPASS_AUTH: 'true' }, /simulator listening/);
    expect(r.stdout).toMatch(/log in as "pilot" with the generated password: [A-Za-z0-9_-]{16}\n/);
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

  it('an unknown AUTO_START_AIRPORT is a configuration error', async () => {
    const err = await startTestSim({ AUTO_START_MODE: 'standalone', AUTO_START_AIRPORT: 'ZZZZ' }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(AutoStartConfigError);
    expect(err.message).toBe(
      'AUTO_START_MODE=standalone cannot start: AUTO_START_AIRPORT ZZZZ is not in the airport database',
    );
  });

  it('an AUTO_START_USB_DEVICE outside /dev is a configuration error', async () => {
    const err = await startTestSim({
      AUTO_START_MODE: 'standalone',
      AUTO_START_USB_ENABLED: 'true',
      AUTO_START_USB_DEVICE: '/dev/../etc/shadow',
    }).catch((e) => e);
    expect(err).toBeInstanceOf(AutoStartConfigError);
    expect(err.message).toBe('AUTO_START_MODE=standalone cannot start: AUTO_START_USB_DEVICE must be a /dev/ path');
  });
});
