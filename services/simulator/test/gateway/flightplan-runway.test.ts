import type { simulator } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime';
import geodesic from 'geographiclib-geodesic';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../helpers/sim.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sim(): Promise<TestSim> {
  const s = await startTestSim({}, { clock: new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0)) });
  cleanups.push(() => s.close());
  return s;
}

// OurAirports runways.csv (upstream commit edd76ff3…), KSFO 28R threshold and true heading.
const THRESHOLD_28R = { lat: 37.61349868774414, lon: -122.35700225830078 };
const HEADING_28R = 298;
const G = geodesic.Geodesic.WGS84;
const angleDiff = (a: number, b: number) => Math.abs(((((a - b) % 360) + 540) % 360) - 180);
type Pos = { lat: number; lon: number; heading: number; speed_kts: number; altitude_ft: number };

describe('flight plan from a runway', () => {
  it('KSFO 28R → KSJC: starts lined up on the 28R threshold, rolls down the runway on 298°, turns for KSJC once airborne', async () => {
    const s = await sim();
    const put = await s.api.request<simulator.FlightPlanStatus>('PUT', '/api/flightplan', {
      points: [{ icao: 'KSFO', runway: '28R' }, { icao: 'KSJC' }],
      cruise_altitude_ft: 4500,
      cruise_speed_kts: 140,
    });
    expect(put.status).toBe(200);
    expect(put.body.plan!.waypoints[0]).toEqual({
      name: 'KSFO',
      icao: 'KSFO',
      runway: '28R',
      lat: 37.6135,
      lon: -122.357,
      elevation_ft: 13,
    });
    expect(put.body.progress).toMatchObject({ phase: 'takeoff', from: 'KSFO', to: 'KSJC' });
    const start = (await s.api.get('/api/status')).body as unknown as Pos & { airport_icao: string };
    expect(start).toMatchObject({ airport_icao: 'KSFO', speed_kts: 0, altitude_ft: 13 });
    expect(G.Inverse(start.lat, start.lon, THRESHOLD_28R.lat, THRESHOLD_28R.lon).s12!).toBeLessThan(30);
    expect(angleDiff(start.heading, HEADING_28R)).toBeLessThanOrEqual(2);

    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'X',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await s.api.ok('/api/control', { action: 'start' });
    const clock = s.clock as ManualClock;
    // KSJC lies about 130° from the threshold, behind the aircraft: a roll that steered for it would turn at once.
    for (let t = 0; t < 15; t++) {
      clock.advance(1000);
      const p = (await s.api.get('/api/status')).body as unknown as Pos;
      const plan = (await s.api.get<simulator.FlightPlanStatus>('/api/flightplan')).body;
      if (plan.progress!.phase !== 'takeoff') break;
      expect(angleDiff(p.heading, HEADING_28R)).toBeLessThanOrEqual(0.5);
      if (p.speed_kts > 0) {
        const along = G.Inverse(THRESHOLD_28R.lat, THRESHOLD_28R.lon, p.lat, p.lon);
        // Still on the runway's centre line.
        if (along.s12! > 20) expect(angleDiff(along.azi1!, HEADING_28R)).toBeLessThan(1);
      }
    }
    clock.advance(120_000);
    const later = (await s.api.get('/api/status')).body as unknown as Pos;
    const toSjc = G.Inverse(later.lat, later.lon, 37.362598, -121.929001).azi1!;
    expect(angleDiff(later.heading, toSjc)).toBeLessThan(10);
  });

  it('refuses a runway the airport lacks, an unknown airport, and a runway anywhere but the first point', async () => {
    const s = await sim();
    const route = (points: unknown[]) =>
      s.api.request<{ detail: string; messages: string[] }>('PUT', '/api/flightplan', {
        points,
        cruise_altitude_ft: 4500,
        cruise_speed_kts: 140,
      });
    const noRunway = await route([{ icao: 'KSFO', runway: '27' }, { icao: 'KSJC' }]);
    expect(noRunway.status).toBe(422);
    expect(noRunway.body.messages).toEqual([
      'points.0: KSFO has no runway 27; its runways are 10L, 28R, 10R, 28L, 01R, 19L, 01L, 19R',
    ]);
    const noAirport = await route([{ icao: 'QQQQ', runway: '28R' }, { icao: 'KSJC' }]);
    expect(noAirport.body.messages).toEqual(['points.0: airport QQQQ not found']);
    const later = await route([{ icao: 'KSJC' }, { icao: 'KSFO', runway: '28R' }]);
    expect(later.status).toBe(422);
    expect(later.body.messages).toEqual([
      'points.1.runway: only the first point can be a runway (the flight starts lined up on it)',
    ]);
    expect((await s.api.get('/api/flightplan')).body).toEqual({ active: false, plan: null, progress: null });
  });
});
