import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { systemClock } from '@outpost/runtime';
import { reachable } from '@outpost/runtime/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { freeTcpPort } from '../helpers/net.js';
import { ptyPair, type PtyPair, skipWithout, stopProcess, tempDir, waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';
import { WsClient } from '../helpers/ws.js';

// gpsd is the real NMEA consumer: if it decodes our USB output to the same fix, so will a panel GPS.
const skip = skipWithout('socat', 'gpsd', 'gpspipe');

interface Tpv {
  class: 'TPV';
  mode: number;
  time?: string;
  lat?: number;
  lon?: number;
  track?: number;
  speed?: number;
}

const KNOT_MS = 1852 / 3600;

describe.skipIf(skip)('gpsd reads the USB NMEA output', () => {
  const dir = tempDir('sim-gpsd-');
  const procs: ChildProcess[] = [];
  let pty: PtyPair | undefined;
  let sim: TestSim | undefined;
  let ws: WsClient | undefined;

  afterAll(async () => {
    ws?.close();
    await sim?.close();
    for (const p of procs) await stopProcess(p);
    await pty?.close();
    dir.remove();
  });

  it('mode-3 TPVs match position, track and speed across an arc-minute and degree boundary', async () => {
    pty = await ptyPair(dir.path);
    const gpsdPort = await freeTcpPort();
    const gpsd = spawn(
      'gpsd',
      ['-N', '-n', '-b', '-F', join(dir.path, 'gpsd.sock'), '-S', String(gpsdPort), pty.output],
      { stdio: 'ignore' },
    );
    procs.push(gpsd);
    // Wait until gpsd accepts clients before attaching gpspipe.
    for (let i = 0; i < 100 && !(await reachable('127.0.0.1', gpsdPort, 200)); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const pipe = spawn('gpspipe', ['-w', `127.0.0.1:${gpsdPort}`], { stdio: ['ignore', 'pipe', 'ignore'] });
    procs.push(pipe);
    const tpvs: Tpv[] = [];
    let buffered = '';
    pipe.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const msg = JSON.parse(line) as { class?: string };
          if (msg.class === 'TPV') tpvs.push(msg as Tpv);
        } catch {
          // partial or non-JSON line
        }
      }
    });

    // 600 kt due east at 37.5 N moves ~0.0035 degrees of longitude a second: starting 0.0105
    // west of 122 W, the run crosses 122°00' (a degree and minute carry, 122°00.00' -> 121°59.99').
    sim = await startTestSim(
      { DEFAULT_AIRSPEED_KTS: '600', DEFAULT_HEADING: '90', SERIAL_BAUDRATE: '115200' },
      { clock: systemClock as never },
    );
    ws = await WsClient.connect(sim.url, sim.api.cookie);
    await sim.api.ok('/api/position', { airport_icao: 'KSFO' });
    await sim.api.ok('/api/position', { lat: 37.5, lon: -122.0105 });
    await sim.api.ok('/api/config/modes', { standalone: true, usb_output: true });
    await sim.api.ok('/api/serial/select', { device: pty.input });
    await sim.api.ok('/api/config/nmea', { gpgga: true, gprmc: true, gpgsa: true, gpvtg: true });
    const started = Date.now();
    await sim.api.ok('/api/control', { action: 'start' });

    const mode3 = () => tpvs.filter((t) => t.mode === 3 && t.lat !== undefined && t.time);
    await waitFor(
      () => mode3().some((t) => t.lon! > -122) && mode3().filter((t) => t.lon! < -122).length >= 2,
      12_000,
      100,
    );
    const runSeconds = (Date.now() - started) / 1000;

    const positions = ws.of('position_update').map((m) => m.data as Record<string, number>);
    let matched = 0;
    for (const t of mode3()) {
      const at = Date.parse(t.time!);
      const p = positions.find((x) => Math.abs(x.timestamp_ms! - at) < 20);
      if (!p) continue;
      matched++;
      expect(Math.abs(t.lat! - p.lat!), `lat at ${t.time}`).toBeLessThan(0.0001);
      expect(Math.abs(t.lon! - p.lon!), `lon at ${t.time}`).toBeLessThan(0.0001);
      expect(t.track).toBeCloseTo(p.heading! % 360, 1);
      expect(Math.abs(t.speed! - p.speed_kts! * KNOT_MS)).toBeLessThan(0.1);
    }
    if (process.env.GPSD_DEBUG) console.log({ matched, runSeconds, tpvs: mode3().slice(-3) });
    expect(matched).toBeGreaterThanOrEqual(3);
    const lons = mode3().map((t) => t.lon!);
    expect(Math.min(...lons)).toBeLessThan(-122);
    expect(Math.max(...lons)).toBeGreaterThan(-122);
    expect(runSeconds).toBeLessThan(15);
  }, 20_000);
});
