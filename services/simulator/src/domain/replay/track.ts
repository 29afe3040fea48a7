import { inverse } from '../flight/geo.js';

/** One recorded fix: time, position and, when the file carried them, altitude, speed and track. */
export interface TrackPoint {
  timeMs: number;
  lat: number;
  lon: number;
  altitude_ft: number | null;
  speed_kts: number | null;
  heading: number | null;
}

/** A parsed file: its points in time order and how many lines or points were skipped, with why. */
export interface Track {
  format: 'nmea' | 'gpx';
  points: TrackPoint[];
  skipped: number;
  /** The first few reasons, for the answer to an upload. */
  problems: string[];
}

/** A complete point: what the player interpolates. */
export interface ReplayPoint {
  /** Milliseconds from the track's first point. */
  t: number;
  lat: number;
  lon: number;
  altitude_ft: number;
  speed_kts: number;
  heading: number;
}

export const MAX_PROBLEMS = 10;

/**
 * Hands the event loop a turn between two slices of a parse, so reading a large upload never holds
 * the 1 Hz outputs up; the domain stays free of timers (the caller passes setImmediate's promise).
 */
export type Pause = () => Promise<void>;

export class Problems {
  skipped = 0;
  readonly first: string[] = [];

  add(why: string): void {
    this.skipped++;
    if (this.first.length < MAX_PROBLEMS) this.first.push(why);
  }
}

/**
 * Fills what the file left out: altitude carried from the last known one (0 before any), ground
 * speed and track from the geodesic to the next point (the last point keeps the one before).
 */
export function completeTrack(points: readonly TrackPoint[]): ReplayPoint[] {
  const t0 = points[0]?.timeMs ?? 0;
  let altitude = 0;
  const out: ReplayPoint[] = [];
  for (const [i, p] of points.entries()) {
    altitude = p.altitude_ft ?? altitude;
    const next = points[i + 1];
    let speed = p.speed_kts;
    let heading = p.heading;
    if ((speed === null || heading === null) && next) {
      const leg = inverse(p, next);
      const hours = (next.timeMs - p.timeMs) / 3_600_000;
      speed ??= hours > 0 ? leg.distanceNm / hours : 0;
      heading ??= leg.distanceNm > 0 ? leg.bearing : (out[i - 1]?.heading ?? 360);
    }
    const prev = out[i - 1];
    out.push({
      t: p.timeMs - t0,
      lat: p.lat,
      lon: p.lon,
      altitude_ft: altitude,
      speed_kts: speed ?? prev?.speed_kts ?? 0,
      heading: heading === null ? (prev?.heading ?? 360) : heading === 0 ? 360 : heading,
    });
  }
  return out;
}
