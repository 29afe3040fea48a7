import { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import {
  decodeDatagram,
  decodeForeFlightId,
  decodeGeoAltitude,
  decodeHeartbeat,
  decodeOwnship,
  type Frame,
} from '../helpers/gdl90-decode.js';
import { freeUdpPort, sendUdp, UdpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const START = Date.UTC(2026, 5, 1, 12, 0, 0);

async function sim(env: Record<string, string> = {}): Promise<TestSim> {
  const s = await startTestSim(env, { clock: new ManualClock(START) });
  cleanups.push(() => s.close());
  return s;
}

async function capture(port = 0): Promise<UdpCapture> {
  const c = await UdpCapture.open('127.0.0.1', port);
  cleanups.push(() => c.close());
  return c;
}

function frames(cap: UdpCapture): Frame[] {
  return cap.received.flatMap((d) => decodeDatagram(d.bytes));
}

describe('GDL 90 output', () => {
  it('heartbeat, ownship, geometric altitude and ForeFlight ID each second, on the fake clock', async () => {
    const cap = await capture();
    const s = await sim({ GDL90_PORT: String(cap.port) });
    await s.api.ok('/api/position', { airport_icao: 'KSFO' });
    await s.api.ok('/api/position', { speed_kts: 120, heading: 135, altitude_ft: 3000 });
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/config/network', {
      gdl90_enabled: true,
      efb_sim_name: 'Rig 7',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await s.api.ok('/api/control', { action: 'start' });
    const clock = s.clock as ManualClock;
    const seconds = 6;
    for (let i = 1; i <= seconds; i++) {
      clock.advance(1000);
      await waitFor(() => frames(cap).filter((f) => f.id === 0x65).length === i);
      const status = (await s.api.get('/api/status')).body as Record<string, number>;
      const own = frames(cap).filter((f) => f.id === 10);
      const o = decodeOwnship(own[i - 1]!.message);
      expect(Math.abs(o.lat - status.lat!)).toBeLessThan(0.0001);
      expect(Math.abs(o.lon - status.lon!)).toBeLessThan(0.0001);
      // 25 ft steps for pressure altitude, 5 ft for geometric.
      expect(Math.abs(o.pressureAltitudeFt! - status.altitude_ft!)).toBeLessThanOrEqual(12.5);
      const geo = decodeGeoAltitude(frames(cap).filter((f) => f.id === 11)[i - 1]!.message);
      expect(Math.abs(geo.altitudeFt - status.altitude_ft!)).toBeLessThanOrEqual(2.5);
      // 8-bit track: 360/256 degrees per step.
      const trackErr = Math.abs(((((o.trackDeg - status.heading!) % 360) + 540) % 360) - 180);
      expect(trackErr).toBeLessThanOrEqual(360 / 512);
      expect(o.speedKts).toBe(Math.round(status.speed_kts!));
      expect(o.trackType).toBe(1);
      expect(o.callSign).toBe('RIG7    ');
      expect(o.emitter).toBe(1);
      expect(o.nic).toBeGreaterThan(0);
      expect(o.nacp).toBeGreaterThan(0);
    }
    // Climbing at 1000 ft per 2 s: 30,000 fpm, in 64 fpm steps.
    const last = decodeOwnship(frames(cap).filter((f) => f.id === 10)[2]!.message);
    expect(last.verticalFpm).toBe(30_016);
    expect(last.airborne).toBe(true);

    const all = frames(cap);
    // One datagram per frame, every one checked by decodeDatagram (flags, stuffing, FCS).
    expect(cap.received.length).toBe(all.length);
    expect(all.length).toBe(seconds * 4);
    const beats = all.filter((f) => f.id === 0).map((f) => decodeHeartbeat(f.message));
    expect(beats.length).toBe(seconds);
    for (const [k, b] of beats.entries()) {
      expect(b.gpsValid).toBe(true);
      expect(b.utcOk).toBe(true);
      expect(b.secondsOfDay).toBe(12 * 3600 + k + 1);
    }
    const ff = all.filter((f) => f.id === 0x65).map((f) => decodeForeFlightId(f.message));
    expect(ff.length).toBeLessThanOrEqual(seconds);
    expect(ff[0]).toEqual({ subId: 0, version: 1, name: 'Rig 7', longName: 'Rig 7', capabilities: 1 });

    // Nothing more is sent between two seconds.
    clock.advance(999);
    await new Promise((r) => setTimeout(r, 50));
    expect(cap.received.length).toBe(all.length);
  });

  it('stuffs 0x7D and 0x7E wherever they fall, and the status shows the targets', async () => {
    const cap = await capture();
    const s = await sim({ GDL90_PORT: String(cap.port) });
    // 0x7E7D7E in the longitude field: a flag, an escape and a flag to stuff.
    const lon = (0x7e7d7e * 180) / 2 ** 23;
    await s.api.ok('/api/position', { airport_icao: 'KSFO' });
    await s.api.ok('/api/position', { lat: 37, lon });
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/config/network', {
      gdl90_enabled: true,
      efb_sim_name: 'Sim1',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    const started = (await s.api.ok('/api/control', { action: 'start' })) as Record<string, unknown>;
    expect(started.running).toBe(true);
    const status = (await s.api.get('/api/status')).body as { outputs: { gdl90: { targets: string[] } } };
    expect(status.outputs.gdl90.targets).toEqual([`127.0.0.1:${cap.port}`]);
    (s.clock as ManualClock).advance(1000);
    await waitFor(() => frames(cap).length === 4);
    const own = cap.received.find((d) => d.bytes.length > 30)!.bytes;
    expect(own.includes(Buffer.from([0x7d, 0x5e, 0x7d, 0x5d, 0x7d, 0x5e]))).toBe(true);
    const o = decodeOwnship(frames(cap).find((f) => f.id === 10)!.message);
    expect(Math.abs(o.lon - lon)).toBeLessThan(0.0001);
  });

  it('runs next to XGPS, is switched on and off while running, and a bad value is a 422', async () => {
    const gdlPort = await freeUdpPort();
    const gdl = await capture(gdlPort);
    const xgps = await capture();
    const s = await sim({ GDL90_PORT: String(gdlPort), EFB_PORT: String(xgps.port) });
    await s.api.ok('/api/position', { airport_icao: 'KSJC' });
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'Sim1',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await s.api.ok('/api/control', { action: 'start' });
    const clock = s.clock as ManualClock;
    clock.advance(1000);
    await waitFor(() => xgps.received.length === 1);
    expect(gdl.received.length).toBe(0);

    const bad = await s.api.post('/api/config/network', { gdl90_enabled: 'yes' });
    expect(bad.status).toBe(422);
    expect((bad.body as { messages: string[] }).messages.join()).toMatch(/gdl90_enabled/);

    await s.api.ok('/api/config/network', { gdl90_enabled: true });
    clock.advance(1000);
    await waitFor(() => xgps.received.length === 2 && frames(gdl).length === 4);
    await s.api.ok('/api/config/network', { gdl90_enabled: false });
    clock.advance(1000);
    await waitFor(() => xgps.received.length === 3);
    await new Promise((r) => setTimeout(r, 50));
    expect(frames(gdl).length).toBe(4);
  });

  it('counts as the EFB output a stand-alone start needs, and needs a name and targets like XGPS', async () => {
    const s = await sim();
    await s.api.ok('/api/position', { airport_icao: 'KSJC' });
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/config/network', { gdl90_enabled: true, efb_sim_name: '' });
    const res = await s.api.post('/api/control', { action: 'start' });
    expect(res.status).toBe(422);
    expect((res.body as { messages: string[] }).messages).toEqual([
      'Select at least one output (USB or EFB)',
      'Select Broadcast or Garmin Pilot/ForeFlight (IP Address)',
    ]);
  });

  it('AUTO_START_GDL90_ENABLED: a rebroadcaster beats with GPS invalid until a feed arrives', async () => {
    const listen = await freeUdpPort();
    const cap = await capture();
    const s = await sim({
      AUTO_START_MODE: 'rebroadcaster',
      AUTO_START_LISTEN_PORT: String(listen),
      AUTO_START_GDL90_ENABLED: 'true',
      AUTO_START_EFB_TARGET_IPS: '127.0.0.1',
      EFB_SIM_NAME: 'Shed',
      GDL90_PORT: String(cap.port),
    });
    expect(s.service.running).toBe(true);
    const clock = s.clock as ManualClock;
    clock.advance(1000);
    await waitFor(() => frames(cap).length === 1);
    expect(frames(cap)[0]!.id).toBe(0);
    expect(decodeHeartbeat(frames(cap)[0]!.message).gpsValid).toBe(false);

    await sendUdp(listen, JSON.stringify({ lat: 1.5, lon: 2.5, alt_ft: 100, speed_kts: 10, heading: 90 }));
    await waitFor(() => s.service.status().lat === 1.5);
    clock.advance(1000);
    await waitFor(() => frames(cap).length === 5);
    const beat = decodeHeartbeat(frames(cap)[1]!.message);
    expect(beat.gpsValid).toBe(true);
    const o = decodeOwnship(frames(cap).find((f) => f.id === 10)!.message);
    expect(o).toMatchObject({ callSign: 'SHED    ', speedKts: 10, pressureAltitudeFt: 100, airborne: false });
    expect(Math.abs(o.lat - 1.5) + Math.abs(o.lon - 2.5)).toBeLessThan(0.0001);
  });

  it('simulated traffic on request: Traffic Reports (ID 20) circling the ownship, none by default', async () => {
    const cap = await capture();
    const s = await sim({ GDL90_PORT: String(cap.port) });
    await s.api.ok('/api/position', { airport_icao: 'KSFO' });
    await s.api.ok('/api/position', { altitude_ft: 3000 });
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/config/network', {
      gdl90_enabled: true,
      gdl90_traffic: 3,
      efb_sim_name: 'Sim1',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    expect((await s.api.post('/api/config/network', { gdl90_traffic: 9 })).status).toBe(422);
    await s.api.ok('/api/control', { action: 'start' });
    (s.clock as ManualClock).advance(1000);
    await waitFor(() => frames(cap).length === 7);
    const status = (await s.api.get('/api/status')).body as Record<string, number>;
    const own = decodeOwnship(frames(cap).find((f) => f.id === 10)!.message);
    const traffic = frames(cap)
      .filter((f) => f.id === 20)
      .map((f) => decodeOwnship(f.message));
    expect(traffic.map((t) => t.callSign)).toEqual(['TFC01   ', 'TFC02   ', 'TFC03   ']);
    const nm = (t: { lat: number; lon: number }) =>
      Math.hypot(
        (t.lat - status.lat!) * 60,
        (t.lon - status.lon!) * 60 * Math.cos((status.lat! * Math.PI) / 180),
      );
    traffic.forEach((t, k) => {
      expect(nm(t)).toBeCloseTo(2 + k, 1);
      expect(t.address).not.toBe(own.address);
      expect(
        Math.abs(t.pressureAltitudeFt! - (status.altitude_ft! + (k % 2 === 0 ? 500 : -500))),
      ).toBeLessThanOrEqual(25);
      expect(t.speedKts).toBe(120);
    });
  });
});
