import { turnBetween } from '../flight/geo.js';
import type { ReplayPoint } from './track.js';
import type { AircraftState } from '../aircraft-state.js';

export const MIN_SPEED = 1;
export const MAX_SPEED = 16;

export type ReplayState = AircraftState;

const normalize = (deg: number): number => {
  const r = ((deg % 360) + 360) % 360;
  return r === 0 ? 360 : r;
};

/**
 * Plays a track back on the caller's clock: track time advances by the elapsed time times the
 * speed (1× to 16×) unless paused, and the position is interpolated linearly between the two points
 * around it (the heading the short way round), so at each point's own time it is exactly that point.
 * At the end it holds the last point, or with loop starts over.
 */
export class Player {
  private trackMs = 0;
  private lastMs: number;
  speed = 1;
  paused = false;
  loop = false;
  laps = 1;

  constructor(
    readonly points: readonly ReplayPoint[],
    nowMs: number,
  ) {
    if (points.length === 0) throw new Error('a replay needs at least one point');
    this.lastMs = nowMs;
  }

  get durationMs(): number {
    return this.points[this.points.length - 1]!.t;
  }

  get positionMs(): number {
    return this.trackMs;
  }

  get finished(): boolean {
    return !this.loop && this.trackMs >= this.durationMs;
  }

  resetTime(nowMs: number): void {
    this.lastMs = nowMs;
  }

  seek(ms: number): void {
    this.trackMs = Math.min(Math.max(0, ms), this.durationMs);
  }

  tick(nowMs: number): ReplayState {
    const dt = Math.max(0, nowMs - this.lastMs);
    this.lastMs = nowMs;
    if (!this.paused) {
      this.trackMs += dt * this.speed;
      const d = this.durationMs;
      if (this.trackMs > d) {
        if (this.loop && d > 0) {
          this.laps += Math.floor(this.trackMs / d);
          this.trackMs %= d;
        } else this.trackMs = d;
      }
    }
    return this.at(this.trackMs);
  }

  state(): ReplayState {
    return this.at(this.trackMs);
  }

  /** The interpolated state at `t` ms into the track. */
  at(t: number): ReplayState {
    const pts = this.points;
    let lo = 0;
    let hi = pts.length - 1;
    if (t >= pts[hi]!.t) return this.hold(pts[hi]!, pts[hi - 1]);
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (pts[mid]!.t <= t) lo = mid;
      else hi = mid;
    }
    const a = pts[lo]!;
    const b = pts[hi]!;
    const span = b.t - a.t;
    const f = span > 0 ? (t - a.t) / span : 0;
    return {
      lat: a.lat + (b.lat - a.lat) * f,
      lon: a.lon + wrap(b.lon - a.lon) * f,
      altitude_ft: a.altitude_ft + (b.altitude_ft - a.altitude_ft) * f,
      speed_kts: a.speed_kts + (b.speed_kts - a.speed_kts) * f,
      heading: normalize(a.heading + turnBetween(a.heading, b.heading) * f),
      vertical_fpm: span > 0 && !this.paused ? ((b.altitude_ft - a.altitude_ft) / span) * 60_000 : 0,
    };
  }

  private hold(last: ReplayPoint, before: ReplayPoint | undefined): ReplayState {
    const stopped = this.finished || this.paused;
    const span = before ? last.t - before.t : 0;
    return {
      lat: last.lat,
      lon: last.lon,
      altitude_ft: last.altitude_ft,
      speed_kts: stopped ? 0 : last.speed_kts,
      heading: last.heading,
      vertical_fpm:
        stopped || !before || span <= 0 ? 0 : ((last.altitude_ft - before.altitude_ft) / span) * 60_000,
    };
  }
}

/** A longitude difference the short way across the antimeridian. */
function wrap(d: number): number {
  return d > 180 ? d - 360 : d < -180 ? d + 360 : d;
}
