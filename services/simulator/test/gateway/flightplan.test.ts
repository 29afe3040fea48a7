import type { simulator } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import * as airports from '../../src/airports/index.js';
import { parseLat, parseLon, parseSentence } from '../domain/nmea-test-parser.js';
import { decodeDatagram, decodeGeoAltitude, decodeOwnship, type Frame } from '../helpers/gdl90-decode.js';
import { UdpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';
import { WsClient } from '../helpers/ws.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sim(env: Record<string, string> = {}): Promise<TestSim> {
  const s = await startTestSim(env, { clock: new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0)) });
  cleanups.push(() => s.close());
  return s;
}

async function capture(): Promise<UdpCapture> {
  const c = await UdpCapture.open('127.0.0.1');
  cleanups.push(() => c.close());
  return c;
}

const ROUTE = {
  points: [{ icao: 'KSFO' }, { icao: 'ksjc' }, { icao: 'KOAK' }],
  cruise_altitude_ft: 4500,
  cruise_speed_kts: 160,
  climb_rate_fpm: 1000,
  descent_rate_fpm: 700,
};

const XGPS = /^XGPS([^,]+),(-?\d+\.\d{6}),(-?\d+\.\d{6}),(-?\d+\.\d),(\d+\.\d{2}),(\d+\.\d)$/;
const NM_PER_DEG_LAT = 60;
const angleDiff = (a: number, b: number) => Math.abs(((((a - b) % 360) + 540) % 360) - 180);

function distanceNm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  // Equirectangular is exact enough at half a mile.
  const dLat = (a.lat - b.lat) * NM_PER_DEG_LAT;
  const dLon = (a.lon - b.lon) * NM_PER_DEG_LAT * Math.cos(((a.lat + b.lat) / 2) * (Math.PI / 180));
  return Math.hypot(dLat, dLon);
}

interface Tick {
  xgps: { lat: number; lon: number; altM: number; track: number; speedMs: number };
  rmc: { lat: number; lon: number; speedKts: number; track: number };
  ggaAltM: number;
  gdl: { lat: number; lon: number; altFt: number; track: number; speedKts: number; geoAltFt: number };
}

describe('flight plans', () => {
  it('KSFO → KSJC → KOAK: cruise, each airport passed, standard-rate turns, lands at KOAK; NMEA, XGPS and GDL 90 agree every second', async () => {
    const nmea = await capture();
    const xgps = await capture();
    const gdl = await capture();
    const s = await sim({ EFB_PORT: String(xgps.port), GDL90_PORT: String(gdl.port) });
    const put = await s.api.request('PUT', '/api/flightplan', ROUTE);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      active: true,
      progress: { phase: 'takeoff', leg: 1, from: 'KSFO', to: 'KSJC' },
    });
    await s.api.ok('/api/config/modes', { sender: true });
    await s.api.ok('/api/config/nmea', {
      gpgga: true,
      gprmc: true,
      gpgll: false,
      gpgsa: false,
      gpgsv: false,
      gphdt: false,
      gpvtg: false,
      gpzda: false,
    });
    await s.api.ok('/api/config/network', {
      protocol: 'udp',
      target_ip: '127.0.0.1',
      port: nmea.port,
      efb_enabled: true,
      gdl90_enabled: true,
      efb_sim_name: 'Route',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    const ws = await WsClient.connect(s.url, s.api.cookie);
    cleanups.push(() => ws.close());
    await s.api.ok('/api/control', { action: 'start' });
    const clock = s.clock as ManualClock;

    const ticks: Tick[] = [];
    let gdlFrames: Frame[] = [];
    for (let n = 0; n < 200; n++) {
      for (let i = 0; i < 10; i++) clock.advance(1000);
      const want = ticks.length + 10;
      await waitFor(
        () =>
          xgps.received.length === want &&
          nmea.received.length === 2 * want &&
          gdl.received.length === 4 * want &&
          ws.of('position_update').length === want,
        5000,
        2,
      );
      gdlFrames = gdl.received.flatMap((d) => decodeDatagram(d.bytes));
      const own = gdlFrames.filter((f) => f.id === 10).map((f) => decodeOwnship(f.message));
      const geo = gdlFrames.filter((f) => f.id === 11).map((f) => decodeGeoAltitude(f.message));
      for (let k = ticks.length; k < want; k++) {
        const x = XGPS.exec(xgps.received[k]!.text)!;
        const rmc = parseSentence(nmea.received[2 * k]!.text);
        const gga = parseSentence(nmea.received[2 * k + 1]!.text);
        expect([rmc.type, gga.type]).toEqual(['RMC', 'GGA']);
        ticks.push({
          xgps: {
            lon: Number(x[2]),
            lat: Number(x[3]),
            altM: Number(x[4]),
            track: Number(x[5]),
            speedMs: Number(x[6]),
          },
          rmc: {
            lat: parseLat(rmc.fields[2]!, rmc.fields[3]!),
            lon: parseLon(rmc.fields[4]!, rmc.fields[5]!),
            speedKts: Number(rmc.fields[6]),
            track: Number(rmc.fields[7]),
          },
          ggaAltM: Number(gga.fields[8]),
          gdl: {
            lat: own[k]!.lat,
            lon: own[k]!.lon,
            altFt: own[k]!.pressureAltitudeFt!,
            track: own[k]!.trackDeg,
            speedKts: own[k]!.speedKts!,
            geoAltFt: geo[k]!.altitudeFt,
          },
        });
      }
      const plan = (await s.api.get('/api/flightplan')).body as {
        active: boolean;
        progress: { phase: string };
      };
      if (plan.progress.phase === 'arrived') break;
    }

    // The WebSocket's position stream follows the same flight, with the plan's progress.
    const live = ws
      .of('position_update')
      .map((m) => m.data as { lat: number; lon: number; flight_plan?: unknown });
    for (const [k, t] of ticks.entries()) {
      expect(Math.abs(live[k]!.lat - t.xgps.lat), `ws tick ${k + 1}`).toBeLessThan(0.000001);
      expect(Math.abs(live[k]!.lon - t.xgps.lon), `ws tick ${k + 1}`).toBeLessThan(0.000001);
      expect(live[k]!.flight_plan, `ws tick ${k + 1}`).toBeDefined();
    }

    // Every tick: the three formats say the same thing.
    for (const [k, t] of ticks.entries()) {
      const at = `tick ${k + 1}`;
      expect(Math.abs(t.rmc.lat - t.xgps.lat), at).toBeLessThan(0.0001);
      expect(Math.abs(t.rmc.lon - t.xgps.lon), at).toBeLessThan(0.0001);
      expect(Math.abs(t.gdl.lat - t.xgps.lat), at).toBeLessThan(0.0001);
      expect(Math.abs(t.gdl.lon - t.xgps.lon), at).toBeLessThan(0.0001);
      expect(Math.abs(t.ggaAltM - t.xgps.altM), at).toBeLessThanOrEqual(0.11);
      expect(Math.abs(t.gdl.geoAltFt - t.xgps.altM / 0.3048), at).toBeLessThanOrEqual(2.6);
      expect(Math.abs(t.gdl.altFt - t.xgps.altM / 0.3048), at).toBeLessThanOrEqual(12.6);
      expect(angleDiff(t.rmc.track, t.xgps.track), at).toBeLessThanOrEqual(0.06);
      expect(angleDiff(t.gdl.track, t.xgps.track), at).toBeLessThanOrEqual(360 / 512 + 0.01);
      expect(Math.abs(t.rmc.speedKts - (t.xgps.speedMs * 3600) / 1852), at).toBeLessThan(0.2);
      expect(Math.abs(t.gdl.speedKts - (t.xgps.speedMs * 3600) / 1852), at).toBeLessThan(0.6);
    }

    // The flight: cruise reached, every airport passed within 0.5 NM, standard-rate turns at most.
    expect(Math.max(...ticks.map((t) => t.xgps.altM))).toBeCloseTo(4500 * 0.3048, 1);
    for (const icao of ['KSFO', 'KSJC', 'KOAK']) {
      const a = airports.lookup(icao)!;
      expect(Math.min(...ticks.map((t) => distanceNm(t.xgps, a))), icao).toBeLessThan(0.5);
    }
    for (let k = 1; k < ticks.length; k++) {
      expect(angleDiff(ticks[k]!.xgps.track, ticks[k - 1]!.xgps.track), `tick ${k + 1}`).toBeLessThanOrEqual(
        3.01,
      );
    }
    // It turned round at KSJC: out on about 126°, back on about 323°.
    expect(angleDiff(ticks[100]!.xgps.track, 126)).toBeLessThan(2);
    expect(angleDiff(ticks[ticks.length - 1]!.xgps.track, 323)).toBeLessThan(2);

    // The end: on KOAK at its field elevation, stopped; the plan says so.
    const oak = airports.lookup('KOAK')!;
    const status = (await s.api.get('/api/status')).body as Record<string, number>;
    expect(distanceNm(status as unknown as { lat: number; lon: number }, oak)).toBeLessThan(0.01);
    expect(status.altitude_ft).toBe(oak.elevation_ft);
    expect(status.speed_kts).toBe(0);
    const last = ticks[ticks.length - 1]!;
    expect(last.xgps.altM).toBeCloseTo(oak.elevation_ft * 0.3048, 1);
    const done = (await s.api.get('/api/flightplan')).body;
    expect(done).toMatchObject({
      active: false,
      progress: { phase: 'arrived', leg: 2, from: 'KSJC', to: 'KOAK', distance_to_go_nm: 0, eta: null },
    });
    // Stays there.
    clock.advance(5000);
    await waitFor(() => xgps.received.length === ticks.length + 5, 5000, 2);
    expect(xgps.received.at(-1)!.text).toBe(xgps.received[ticks.length - 1]!.text);
  });

  it('422 for unknown airports, fewer than 2 points and rates out of range, and nothing changes', async () => {
    const s = await sim();
    await s.api.ok('/api/position', { airport_icao: 'KJFK' });
    const before = (await s.api.get('/api/status')).body;
    const cases: Array<[unknown, RegExp[]]> = [
      [
        { ...ROUTE, points: [{ icao: 'KSFO' }, { icao: 'ZZZZ' }, { icao: 'QQQ' }] },
        [/points\.1: airport ZZZZ not found/, /points\.2: airport QQQ not found/],
      ],
      [{ ...ROUTE, points: [{ icao: 'KSFO' }] }, [/points: a flight plan needs at least 2 points/]],
      [{ ...ROUTE, climb_rate_fpm: 50_000 }, [/climb_rate_fpm/]],
      [{ ...ROUTE, descent_rate_fpm: 0 }, [/descent_rate_fpm/]],
      [{ ...ROUTE, cruise_speed_kts: 5 }, [/cruise_speed_kts/]],
      [{ ...ROUTE, points: [{ lat: 91, lon: 0 }, { icao: 'KSFO' }] }, [/points\.0/]],
      [{ ...ROUTE, extra: 1 }, [/extra/]],
      [
        { ...ROUTE, points: [{ icao: 'KSFO' }, { icao: 'KLXV' }], cruise_altitude_ft: 6000 },
        [/not above KLXV/],
      ],
    ];
    for (const [body, patterns] of cases) {
      const res = await s.api.request<{ detail: string; messages: string[] }>('PUT', '/api/flightplan', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      for (const p of patterns) expect(res.body.messages.join('\n')).toMatch(p);
      expect(res.body.detail).toBe(res.body.messages.join('; '));
    }
    expect((await s.api.get('/api/flightplan')).body).toEqual({ active: false, plan: null, progress: null });
    expect((await s.api.get('/api/status')).body).toEqual(before);
  });

  it('coordinates as points, progress and ETA, position locked while flying, DELETE holds course', async () => {
    const s = await sim();
    const plan = {
      points: [{ lat: 37.5, lon: -122.2, name: 'Start' }, { icao: 'KSQL' }, { lat: 37.7, lon: -122 }],
      cruise_altitude_ft: 3000,
      cruise_speed_kts: 120,
    };
    const put = await s.api.request<simulator.FlightPlanStatus>('PUT', '/api/flightplan', plan);
    expect(put.status).toBe(200);
    expect(put.body.plan).toMatchObject({ climb_rate_fpm: 700, descent_rate_fpm: 500, loop: false });
    expect(put.body.plan!.waypoints.map((w) => w.name)).toEqual(['Start', 'KSQL', '37.7000,-122.0000']);
    const status = (await s.api.get('/api/status')).body;
    expect(status).toMatchObject({ lat: 37.5, lon: -122.2, altitude_ft: 0, airport_icao: null });
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'X',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await s.api.ok('/api/control', { action: 'start' });
    const clock = s.clock as ManualClock;
    clock.advance(60_000);
    const got = (await s.api.get<simulator.FlightPlanStatus>('/api/flightplan')).body;
    expect(got.progress).toMatchObject({ phase: 'climb', leg: 1, from: 'Start', to: 'KSQL' });
    const toGo = got.progress!.distance_to_go_nm;
    expect(got.progress!.leg_distance_to_go_nm).toBeLessThan(toGo);
    const etaMs = Date.parse(got.progress!.eta!) - clock.now();
    expect(etaMs).toBeCloseTo((toGo / 120) * 3_600_000, -3);

    const locked = await s.api.post('/api/position', { heading: 10 });
    expect(locked.status).toBe(409);

    const del = await s.api.request('DELETE', '/api/flightplan');
    expect(del.body).toEqual({ active: false, plan: null, progress: null });
    const held = (await s.api.get('/api/status')).body as Record<string, number>;
    clock.advance(10_000);
    const later = (await s.api.get('/api/status')).body as Record<string, number>;
    expect(later.heading).toBe(held.heading);
    expect(later.speed_kts).toBe(held.speed_kts);
    expect(later.altitude_ft).toBe(held.altitude_ft);
    expect(later.lat).not.toBe(held.lat);
    expect((await s.api.post('/api/position', { heading: 10 })).status).toBe(200);
  });
});
