import { describe, expect, it } from 'vitest';
import * as airports from '../../src/airports/index.js';
import { Flight, type Waypoint } from '../../src/domain/flight/flight.js';
import { inverse, turnBetween } from '../../src/domain/flight/geo.js';

function airport(icao: string): Waypoint {
  const a = airports.lookup(icao)!;
  return { name: a.icao, icao: a.icao, lat: a.lat, lon: a.lon, elevation_ft: a.elevation_ft };
}

const PROFILE = {
  cruise_altitude_ft: 4500,
  cruise_speed_kts: 160,
  climb_rate_fpm: 1000,
  descent_rate_fpm: 700,
  loop: false,
};

function fly(f: Flight, seconds: number, start = 0) {
  const states = [];
  for (let t = 1; t <= seconds; t++) states.push(f.tick(start + t * 1000));
  return states;
}

describe('Flight', () => {
  it('KSFO, KSJC, KOAK: climbs to cruise, passes each airport, turns at standard rate, lands at KOAK', () => {
    const route = ['KSFO', 'KSJC', 'KOAK'].map(airport);
    const f = new Flight(route, PROFILE, 0);
    const states = fly(f, 3 * 3600);
    expect(f.arrived).toBe(true);
    const maxAlt = Math.max(...states.map((s) => s.altitude_ft));
    expect(maxAlt).toBeCloseTo(4500, 6);
    for (const w of route) {
      const closest = Math.min(...states.map((s) => inverse(s, w).distanceNm));
      expect(closest, w.name).toBeLessThan(0.5);
    }
    let prev = states[0]!;
    for (const s of states.slice(1)) {
      expect(Math.abs(turnBetween(prev.heading, s.heading))).toBeLessThanOrEqual(3 + 1e-9);
      prev = s;
    }
    const end = f.state();
    const oak = route[2]!;
    expect(inverse(end, oak).distanceNm).toBeLessThan(0.01);
    expect(end.altitude_ft).toBe(oak.elevation_ft);
    expect(end.speed_kts).toBe(0);
    // Descending all the way at no more than the descent rate.
    const vs = states.map((s) => s.vertical_fpm);
    expect(Math.min(...vs)).toBeGreaterThanOrEqual(-700);
    expect(Math.max(...vs)).toBeLessThanOrEqual(1000);
    expect(f.progress()).toMatchObject({ phase: 'arrived', leg: 2, from: 'KSJC', to: 'KOAK', eta_ms: null });
  });

  it('a hop too short for cruise tops out where the descent must begin', () => {
    const a = { name: 'A', icao: null, lat: 37, lon: -122, elevation_ft: 0 };
    const b = { name: 'B', icao: null, lat: 37.1, lon: -122, elevation_ft: 0 };
    const f = new Flight([a, b], { ...PROFILE, cruise_altitude_ft: 20_000 }, 0);
    const states = fly(f, 1200);
    expect(f.arrived).toBe(true);
    const top = Math.max(...states.map((s) => s.altitude_ft));
    expect(top).toBeGreaterThan(500);
    expect(top).toBeLessThan(2000);
    expect(f.state().altitude_ft).toBe(0);
  });

  it('progress counts distance over the remaining legs and an ETA at the current speed', () => {
    const route = ['KSFO', 'KSJC', 'KOAK'].map(airport);
    const f = new Flight(route, PROFILE, 0);
    const total = inverse(route[0]!, route[1]!).distanceNm + inverse(route[1]!, route[2]!).distanceNm;
    expect(f.progress()).toMatchObject({ phase: 'takeoff', leg: 1, from: 'KSFO', to: 'KSJC' });
    expect(f.progress().distance_to_go_nm).toBeCloseTo(total, 6);
    expect(f.progress().eta_ms).toBe(Math.round((total / 160) * 3_600_000));
  });

  it('with loop, departs again for the first point and never stops', () => {
    const route = ['KSFO', 'KOAK'].map(airport);
    const f = new Flight(route, { ...PROFILE, loop: true }, 0);
    const states = fly(f, 3600);
    expect(f.arrived).toBe(false);
    expect(f.progress().lap).toBeGreaterThan(2);
    for (const w of route) {
      expect(Math.min(...states.map((s) => inverse(s, w).distanceNm))).toBeLessThan(0.01);
    }
    for (let i = 1; i < states.length; i++) {
      expect(Math.abs(turnBetween(states[i - 1]!.heading, states[i]!.heading))).toBeLessThanOrEqual(3 + 1e-9);
    }
  });

  it('a point inside the turning circle is reached, not circled forever', () => {
    const a = { name: 'A', icao: null, lat: 37, lon: -122, elevation_ft: 0 };
    const b = { name: 'B', icao: null, lat: 37.2, lon: -122, elevation_ft: 0 };
    // Back toward A, but 0.3 NM abeam: well inside a 3 NM turn circle at 600 kt.
    const c = { name: 'C', icao: null, lat: 37.195, lon: -122.006, elevation_ft: 0 };
    const f = new Flight([a, b, c, a], { ...PROFILE, cruise_speed_kts: 600 }, 0);
    fly(f, 3600);
    expect(f.arrived).toBe(true);
  });
});
