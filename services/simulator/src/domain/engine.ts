import geodesic from 'geographiclib-geodesic';

const WGS84 = geodesic.Geodesic.WGS84;
const METRES_PER_NM = 1852;

/** Ramp rates; the env names are ALTITUDE_RATE_FT_PER_2SEC, AIRSPEED_RATE_KTS_PER_SEC, HEADING_RATE_DEG_PER_SEC. */
export interface EngineRates {
  altitudeFtPer2Sec: number;
  airspeedKtsPerSec: number;
  headingDegPerSec: number;
}

export const DEFAULT_RATES: EngineRates = Object.freeze({
  altitudeFtPer2Sec: 1000,
  airspeedKtsPerSec: 30,
  headingDegPerSec: 3,
});

export interface PositionValues {
  lat: number;
  lon: number;
  altitude_ft: number;
  speed_kts: number;
  /** Degrees true in (0, 360]; north is reported as 360, the aviation convention. */
  heading: number;
}

export interface EngineState extends PositionValues {
  /** Feet per minute over the last tick (climb positive); 0 after a jump. */
  vertical_fpm: number;
  target_altitude_ft: number;
  target_speed_kts: number;
  target_heading: number;
}

export interface EngineInit {
  lat: number;
  lon: number;
  altitude_ft?: number;
  speed_kts?: number;
  heading?: number;
}

/** Maps any angle to (0, 360], so north is 360 and never 0. */
export function normalizeHeading(deg: number): number {
  if (!Number.isFinite(deg)) return 360;
  const r = ((deg % 360) + 360) % 360;
  return r === 0 ? 360 : r;
}

/** Signed shortest turn from `from` to `to`, in (-180, 180]; exactly 180 turns right. */
export function shortestTurn(from: number, to: number): number {
  const d = ((((to - from) % 360) + 540) % 360) - 180;
  return d === -180 ? 180 : d;
}

function rampLinear(current: number, target: number, maxStep: number): number {
  const diff = target - current;
  if (Math.abs(diff) <= maxStep) return target;
  return current + Math.sign(diff) * maxStep;
}

function wrapLon(lon: number): number {
  if (lon >= -180 && lon <= 180) return lon;
  const r = ((((lon + 180) % 360) + 360) % 360) - 180;
  return r === -180 ? 180 : r;
}

/**
 * The simulated aircraft: current values ramp toward targets at fixed rates and the position is
 * dead-reckoned along the WGS-84 geodesic for the current track and ground speed.
 */
export class Engine {
  private s: EngineState;
  private currentRates: EngineRates;
  private lastMs: number;

  constructor(init: EngineInit, rates: Partial<EngineRates> = {}, nowMs = 0) {
    this.currentRates = { ...DEFAULT_RATES, ...rates };
    const altitude = init.altitude_ft ?? 0;
    const speed = Math.max(0, init.speed_kts ?? 0);
    const heading = normalizeHeading(init.heading ?? 360);
    this.s = {
      lat: init.lat,
      lon: wrapLon(init.lon),
      altitude_ft: altitude,
      speed_kts: speed,
      heading,
      vertical_fpm: 0,
      target_altitude_ft: altitude,
      target_speed_kts: speed,
      target_heading: heading,
    };
    this.lastMs = nowMs;
  }

  state(): EngineState {
    return { ...this.s };
  }

  rates(): EngineRates {
    return { ...this.currentRates };
  }

  /** New ramp rates from the next tick; values not given stay. */
  setRates(r: Partial<EngineRates>): void {
    for (const [k, v] of Object.entries(r) as Array<[keyof EngineRates, number | undefined]>) {
      if (v !== undefined && Number.isFinite(v) && v > 0) this.currentRates[k] = v;
    }
  }

  /** lat/lon jump at once; altitude, speed and heading become targets that the ramps reach over time. */
  setTargets(p: Partial<PositionValues>): EngineState {
    if (p.lat !== undefined) this.s.lat = p.lat;
    if (p.lon !== undefined) this.s.lon = wrapLon(p.lon);
    if (p.altitude_ft !== undefined) this.s.target_altitude_ft = p.altitude_ft;
    if (p.speed_kts !== undefined) this.s.target_speed_kts = Math.max(0, p.speed_kts);
    if (p.heading !== undefined) this.s.target_heading = normalizeHeading(p.heading);
    return this.state();
  }

  /** Sets current and target together (airport selection, received positions): no ramp. */
  jumpTo(p: Partial<PositionValues>): EngineState {
    if (p.lat !== undefined) this.s.lat = p.lat;
    if (p.lon !== undefined) this.s.lon = wrapLon(p.lon);
    if (p.altitude_ft !== undefined) {
      this.s.altitude_ft = p.altitude_ft;
      this.s.target_altitude_ft = p.altitude_ft;
      this.s.vertical_fpm = 0;
    }
    if (p.speed_kts !== undefined) {
      const v = Math.max(0, p.speed_kts);
      this.s.speed_kts = v;
      this.s.target_speed_kts = v;
    }
    if (p.heading !== undefined) {
      const h = normalizeHeading(p.heading);
      this.s.heading = h;
      this.s.target_heading = h;
    }
    return this.state();
  }

  /**
   * Takes a position computed elsewhere (a flight plan) as current and target alike, so that when
   * the plan ends the aircraft holds what it was doing.
   */
  place(p: PositionValues & { vertical_fpm: number }): EngineState {
    this.jumpTo(p);
    this.s.vertical_fpm = p.vertical_fpm;
    return this.state();
  }

  /** Restarts the time base, so a tick after a stopped period does not fly through the pause. */
  resetTime(nowMs: number): void {
    this.lastMs = nowMs;
  }

  tick(nowMs: number): EngineState {
    const dt = (nowMs - this.lastMs) / 1000;
    this.lastMs = nowMs;
    if (!(dt > 0)) return this.state();
    const s = this.s;
    const startSpeed = s.speed_kts;
    const startAltitude = s.altitude_ft;

    s.altitude_ft = rampLinear(
      s.altitude_ft,
      s.target_altitude_ft,
      (this.currentRates.altitudeFtPer2Sec / 2) * dt,
    );
    s.vertical_fpm = ((s.altitude_ft - startAltitude) / dt) * 60;
    s.speed_kts = rampLinear(s.speed_kts, s.target_speed_kts, this.currentRates.airspeedKtsPerSec * dt);
    const turn = shortestTurn(s.heading, s.target_heading);
    const maxTurn = this.currentRates.headingDegPerSec * dt;
    s.heading =
      Math.abs(turn) <= maxTurn ? s.target_heading : normalizeHeading(s.heading + Math.sign(turn) * maxTurn);

    // Trapezoidal speed over the interval keeps distance right while accelerating.
    const distanceM = ((startSpeed + s.speed_kts) / 2) * (dt / 3600) * METRES_PER_NM;
    if (distanceM > 0) {
      const r = WGS84.Direct(s.lat, s.lon, s.heading % 360, distanceM);
      if (
        r.lat2 !== undefined &&
        r.lon2 !== undefined &&
        Number.isFinite(r.lat2) &&
        Number.isFinite(r.lon2)
      ) {
        s.lat = r.lat2;
        s.lon = wrapLon(r.lon2);
      }
    }
    return this.state();
  }
}
