import geodesic from 'geographiclib-geodesic';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RATES, Engine, normalizeHeading, shortestTurn } from '../../src/domain/engine.js';

const WGS84 = geodesic.Geodesic.WGS84;

/** Ticks once per simulated second for `seconds`, returning the state after each tick. */
function run(engine: Engine, startMs: number, seconds: number) {
  const states = [];
  for (let i = 1; i <= seconds; i++) states.push(engine.tick(startMs + i * 1000));
  return states;
}

describe('engine ramps', () => {
  it('uses the spec defaults: 1000 ft per 2 s, 30 kt per s, 3 deg per s, heading 360', () => {
    expect(DEFAULT_RATES).toEqual({ altitudeFtPer2Sec: 1000, airspeedKtsPerSec: 30, headingDegPerSec: 3 });
    const e = new Engine({ lat: 40, lon: -100 });
    expect(e.state()).toMatchObject({ altitude_ft: 0, speed_kts: 0, heading: 360, target_heading: 360 });
  });

  it('climbs 1000 ft in 2 s and stops exactly at the target', () => {
    const e = new Engine({ lat: 40, lon: -100, altitude_ft: 500 }, {}, 0);
    e.setTargets({ altitude_ft: 3000 });
    expect(e.tick(1000).altitude_ft).toBe(1000);
    expect(e.tick(2000).altitude_ft).toBe(1500);
    expect(e.tick(6000).altitude_ft).toBe(3000); // 4 s later would allow 2000 ft; capped at target
    expect(e.tick(7000).altitude_ft).toBe(3000);
  });

  it('descends at the same rate', () => {
    const e = new Engine({ lat: 40, lon: -100, altitude_ft: 10000 }, {}, 0);
    e.setTargets({ altitude_ft: 0 });
    expect(e.tick(2000).altitude_ft).toBe(9000);
  });

  it('ramps speed 30 kt per second up and down', () => {
    const e = new Engine({ lat: 40, lon: -100 }, {}, 0);
    e.setTargets({ speed_kts: 100 });
    expect(run(e, 0, 4).map((s) => s.speed_kts)).toEqual([30, 60, 90, 100]);
    e.setTargets({ speed_kts: 40 });
    expect(e.tick(5000).speed_kts).toBe(70);
    expect(e.tick(7000).speed_kts).toBe(40);
  });

  it('turns 350 -> 10 through north, 3 deg per second, never the long way', () => {
    const e = new Engine({ lat: 40, lon: -100, heading: 350 }, {}, 0);
    e.setTargets({ heading: 10 });
    const hs = run(e, 0, 8).map((s) => Number(s.heading.toFixed(6)));
    expect(hs).toEqual([353, 356, 359, 2, 5, 8, 10, 10]);
  });

  it('turns 10 -> 350 counter-clockwise through 360', () => {
    const e = new Engine({ lat: 40, lon: -100, heading: 10 }, {}, 0);
    e.setTargets({ heading: 350 });
    const hs = run(e, 0, 4).map((s) => Number(s.heading.toFixed(6)));
    expect(hs).toEqual([7, 4, 1, 358]);
  });

  it('lands on 360 (not 0) when turning to north, and treats a 0 target as 360', () => {
    const e = new Engine({ lat: 40, lon: -100, heading: 6 }, {}, 0);
    e.setTargets({ heading: 0 });
    expect(e.state().target_heading).toBe(360);
    expect(e.tick(1000).heading).toBe(3);
    expect(e.tick(2000).heading).toBe(360);
  });

  it('honours custom rates', () => {
    const e = new Engine(
      { lat: 0, lon: 0 },
      { altitudeFtPer2Sec: 500, airspeedKtsPerSec: 5, headingDegPerSec: 1 },
      0,
    );
    e.setTargets({ altitude_ft: 10000, speed_kts: 100, heading: 90 });
    const s = e.tick(2000);
    expect(s.altitude_ft).toBe(500);
    expect(s.speed_kts).toBe(10);
    expect(s.heading).toBe(2);
  });

  it('jumpTo sets current and target together; setTargets moves lat/lon at once', () => {
    const e = new Engine({ lat: 0, lon: 0 }, {}, 0);
    e.jumpTo({ lat: 51.47, lon: -0.4543, altitude_ft: 83, speed_kts: 120, heading: 270 });
    expect(e.state()).toMatchObject({
      altitude_ft: 83,
      target_altitude_ft: 83,
      speed_kts: 120,
      heading: 270,
    });
    e.setTargets({ lat: 10, lon: 20, altitude_ft: 2000 });
    expect(e.state()).toMatchObject({ lat: 10, lon: 20, altitude_ft: 83, target_altitude_ft: 2000 });
  });

  it('does not move across a stopped period after resetTime', () => {
    const e = new Engine({ lat: 10, lon: 10, speed_kts: 300, heading: 90 }, {}, 0);
    e.resetTime(3_600_000);
    const s = e.tick(3_600_000);
    expect(s.lon).toBe(10);
    expect(e.tick(3_601_000).lon).toBeGreaterThan(10);
  });
});

describe('engine dead reckoning on WGS-84', () => {
  it('covers speed x time along the geodesic (60 kt east for one hour = 60 NM)', () => {
    const e = new Engine({ lat: 0, lon: 0, speed_kts: 60, heading: 90 }, {}, 0);
    run(e, 0, 3600);
    const s = e.state();
    const inv = WGS84.Inverse(0, 0, s.lat, s.lon);
    expect(inv.s12).toBeCloseTo(60 * 1852, 0);
    expect(Math.abs(s.lat)).toBeLessThan(1e-9);
  });

  it('accounts for acceleration within a tick (trapezoid)', () => {
    const e = new Engine({ lat: 0, lon: 0, heading: 360 }, {}, 0);
    e.setTargets({ speed_kts: 30 });
    const s = e.tick(1000); // 0 -> 30 kt: average 15 kt for 1 s
    const inv = WGS84.Inverse(0, 0, s.lat, s.lon);
    expect(inv.s12).toBeCloseTo((15 * 1852) / 3600, 6);
  });

  it('wraps the antimeridian and stays finite over the pole', () => {
    const east = new Engine({ lat: 0, lon: 179.999, speed_kts: 600, heading: 90 }, {}, 0);
    const s = east.tick(10_000);
    expect(s.lon).toBeLessThan(-179);
    expect(s.lon).toBeGreaterThanOrEqual(-180);

    const north = new Engine({ lat: 89.999, lon: 0, speed_kts: 600, heading: 360 }, {}, 0);
    for (let i = 1; i <= 20; i++) {
      const st = north.tick(i * 1000);
      expect(Number.isFinite(st.lat) && Number.isFinite(st.lon)).toBe(true);
      expect(st.lat).toBeLessThanOrEqual(90);
      expect(Math.abs(st.lon)).toBeLessThanOrEqual(180);
    }
  });
});

describe('heading helpers', () => {
  it('normalizeHeading maps to (0, 360]', () => {
    expect(normalizeHeading(0)).toBe(360);
    expect(normalizeHeading(360)).toBe(360);
    expect(normalizeHeading(720)).toBe(360);
    expect(normalizeHeading(-90)).toBe(270);
    expect(normalizeHeading(359.99)).toBeCloseTo(359.99, 10);
    expect(normalizeHeading(Number.NaN)).toBe(360);
  });
  it('shortestTurn picks the short way', () => {
    expect(shortestTurn(350, 10)).toBe(20);
    expect(shortestTurn(10, 350)).toBe(-20);
    expect(shortestTurn(360, 0)).toBe(0);
    expect(shortestTurn(0, 180)).toBe(180);
  });
});
