import { direct, inverse, type LatLon, turnBetween } from './geo.js';
import type { AircraftState } from '../aircraft-state.js';

/** One resolved point of a route: an airport (with its field elevation) or coordinates (0 ft). */
export interface Waypoint {
  name: string;
  icao: string | null;
  lat: number;
  lon: number;
  elevation_ft: number;
  /** A first point on a runway: the end's ident and its true heading, held through the take-off roll. */
  runway?: string;
  heading?: number;
}

export interface FlightProfile {
  cruise_altitude_ft: number;
  cruise_speed_kts: number;
  climb_rate_fpm: number;
  descent_rate_fpm: number;
  loop: boolean;
}

export type FlightPhase = 'takeoff' | 'climb' | 'cruise' | 'descent' | 'arrived';

export type FlightState = AircraftState;

export interface FlightProgress {
  phase: FlightPhase;
  lap: number;
  leg: number;
  from: string;
  to: string;
  leg_distance_to_go_nm: number;
  distance_to_go_nm: number;
  /** Milliseconds to the last point at the current (or, on the ground, cruise) speed; null once arrived. */
  eta_ms: number | null;
}

/** A standard-rate turn. */
export const TURN_RATE_DEG_PER_SEC = 3;
/** Take-off roll acceleration. */
const ACCELERATION_KTS_PER_SEC = 5;
const RAD = Math.PI / 180;

const normalize = (deg: number): number => {
  const r = ((deg % 360) + 360) % 360;
  return r === 0 ? 360 : r;
};

/**
 * Flies a route: take-off roll at the first point (down the runway when it is one), climb at the climb rate to cruise, great-circle
 * legs flown direct to each next point, standard-rate turns after passing over each point, and a
 * descent timed to reach the last point's field elevation as it gets there; then it stops, or with
 * `loop` departs again for the first point. Pure: time comes in through tick().
 */
export class Flight {
  private route: Waypoint[];
  private next = 1;
  private lap = 1;
  private phase: FlightPhase = 'takeoff';
  private s: FlightState;
  private lastMs: number;

  constructor(
    readonly waypoints: readonly Waypoint[],
    readonly profile: FlightProfile,
    nowMs: number,
  ) {
    if (waypoints.length < 2) throw new Error('a flight needs at least 2 points');
    this.route = [...waypoints];
    const first = waypoints[0]!;
    this.s = {
      lat: first.lat,
      lon: first.lon,
      altitude_ft: first.elevation_ft,
      speed_kts: 0,
      // Lined up on the runway, or else with the first leg so the take-off needs no turn.
      heading: normalize(first.heading ?? inverse(first, waypoints[1]!).bearing),
      vertical_fpm: 0,
    };
    this.lastMs = nowMs;
  }

  state(): FlightState {
    return { ...this.s };
  }

  get arrived(): boolean {
    return this.phase === 'arrived';
  }

  /** Restarts the time base after a stopped period, so the flight does not jump ahead. */
  resetTime(nowMs: number): void {
    this.lastMs = nowMs;
  }

  tick(nowMs: number): FlightState {
    const dt = (nowMs - this.lastMs) / 1000;
    this.lastMs = nowMs;
    if (!(dt > 0) || this.phase === 'arrived') {
      this.s.vertical_fpm = 0;
      return this.state();
    }
    const s = this.s;
    const p = this.profile;
    const target = this.route[this.next]!;
    const toTarget = inverse(s, target);

    // A take-off from a runway rolls straight down it; the turn toward the first leg comes airborne.
    const onRunway = this.phase === 'takeoff' && this.lap === 1 && this.waypoints[0]!.heading !== undefined;
    if (!onRunway) this.steer(toTarget, dt);
    const startSpeed = s.speed_kts;
    s.speed_kts = Math.min(p.cruise_speed_kts, s.speed_kts + ACCELERATION_KTS_PER_SEC * dt);
    this.climbOrDescend(toTarget.distanceNm, dt);

    const stepNm = (((startSpeed + s.speed_kts) / 2) * dt) / 3600;
    const ahead = Math.abs(turnBetween(s.heading, toTarget.bearing)) < 90;
    if (ahead && toTarget.distanceNm <= stepNm) {
      // Over the point: this tick ends on it, and the next leg begins.
      s.lat = target.lat;
      s.lon = target.lon;
      this.sequence();
    } else if (stepNm > 0) {
      const to = direct(s, s.heading % 360, stepNm);
      s.lat = to.lat;
      s.lon = to.lon;
    }
    return this.state();
  }

  progress(): FlightProgress {
    const s = this.s;
    const last = this.route[this.route.length - 1]!;
    if (this.phase === 'arrived') {
      return {
        phase: 'arrived',
        lap: this.lap,
        leg: this.route.length - 1,
        from: this.route[this.route.length - 2]!.name,
        to: last.name,
        leg_distance_to_go_nm: 0,
        distance_to_go_nm: 0,
        eta_ms: null,
      };
    }
    const legToGo = inverse(s, this.route[this.next]!).distanceNm;
    const toGo = legToGo + this.remainingAfter(this.next);
    const speed = s.speed_kts > 1 ? s.speed_kts : this.profile.cruise_speed_kts;
    return {
      phase: this.phase,
      lap: this.lap,
      leg: this.next,
      from: this.route[this.next - 1]!.name,
      to: this.route[this.next]!.name,
      leg_distance_to_go_nm: legToGo,
      distance_to_go_nm: toGo,
      eta_ms: Math.round((toGo / speed) * 3_600_000),
    };
  }

  /**
   * Turns toward the next point at no more than the standard rate. A point inside the turning
   * circle would be circled forever, so while it is behind and that close the aircraft flies
   * straight until it can turn onto it.
   */
  private steer(toTarget: { distanceNm: number; bearing: number }, dt: number): void {
    const s = this.s;
    const error = turnBetween(s.heading, toTarget.bearing);
    const radiusNm = s.speed_kts / 3600 / (TURN_RATE_DEG_PER_SEC * RAD);
    if (Math.abs(error) > 90 && toTarget.distanceNm < 2 * radiusNm) return;
    const maxTurn = TURN_RATE_DEG_PER_SEC * dt;
    s.heading = normalize(
      Math.abs(error) <= maxTurn ? toTarget.bearing : s.heading + Math.sign(error) * maxTurn,
    );
  }

  /**
   * Climbs toward cruise until the descent at the descent rate would no longer reach the last
   * point's field elevation in the time left; then descends at the rate that gets there exactly.
   */
  private climbOrDescend(legToGoNm: number, dt: number): void {
    const s = this.s;
    const p = this.profile;
    const field = this.route[this.route.length - 1]!.elevation_ft;
    const toGoNm = legToGoNm + this.remainingAfter(this.next);
    const minutesToGo = s.speed_kts > 0 ? (toGoNm / s.speed_kts) * 60 : Number.POSITIVE_INFINITY;
    const needed = (s.altitude_ft - field) / minutesToGo;
    let fpm = 0;
    if (this.phase === 'takeoff') {
      if (s.speed_kts >= Math.min(p.cruise_speed_kts, Math.max(40, p.cruise_speed_kts * 0.6))) {
        this.phase = 'climb';
      }
    } else if (this.phase !== 'descent' && needed >= p.descent_rate_fpm * 0.999) {
      this.phase = 'descent';
    }
    if (this.phase === 'climb' || this.phase === 'cruise') {
      const room = p.cruise_altitude_ft - s.altitude_ft;
      fpm = room > 0 ? Math.min(p.climb_rate_fpm, (room / dt) * 60) : 0;
      if (room <= 0) this.phase = 'cruise';
    } else if (this.phase === 'descent') {
      const above = s.altitude_ft - field;
      fpm = above > 0 ? -Math.min(p.descent_rate_fpm, needed, (above / dt) * 60) : 0;
    }
    s.vertical_fpm = fpm;
    s.altitude_ft += (fpm / 60) * dt;
  }

  /** Great-circle length of the legs after the one ending at `index`. */
  private remainingAfter(index: number): number {
    let nm = 0;
    for (let i = index; i < this.route.length - 1; i++)
      nm += inverse(this.route[i]!, this.route[i + 1]!).distanceNm;
    return nm;
  }

  private sequence(): void {
    this.next++;
    if (this.next < this.route.length) return;
    const last = this.route[this.route.length - 1]!;
    this.s.altitude_ft = last.elevation_ft;
    this.s.vertical_fpm = 0;
    if (!this.profile.loop) {
      this.phase = 'arrived';
      this.s.speed_kts = 0;
      this.next = this.route.length - 1;
      return;
    }
    // The next lap leaves from here for the first point (unless the route already closes the circuit).
    const first = this.waypoints[0]!;
    const closed = samePlace(first, last);
    this.route = closed ? [...this.waypoints] : [last, ...this.waypoints];
    this.next = 1;
    this.lap++;
    this.phase = 'climb';
  }
}

function samePlace(a: LatLon, b: LatLon): boolean {
  return Math.abs(a.lat - b.lat) < 1e-9 && Math.abs(a.lon - b.lon) < 1e-9;
}
