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
  /** Set when the file is refused whole (422 with this detail), whatever points were read. */
  refused?: string;
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
  const out: ReplayPoint[] = [];
  completeSome(points, out, 0, points.length, { altitude: 0 });
  return out;
}

/** Points completed between two turns of the event loop (a geodesic each: a few ms in all). */
const COMPLETE_SLICE = 8192;

/**
 * completeTrack with a turn of the event loop every few thousand points: a 10 MB GPX of short points
 * is about 300,000 of them, and their geodesics in one go held the loop for over 50 ms.
 */
export async function completeTrackPaused(
  points: readonly TrackPoint[],
  pause: Pause,
): Promise<ReplayPoint[]> {
  const out: ReplayPoint[] = [];
  const carried = { altitude: 0 };
  for (let from = 0; from < points.length; from += COMPLETE_SLICE) {
    completeSome(points, out, from, Math.min(points.length, from + COMPLETE_SLICE), carried);
    await pause();
  }
  return out;
}

/** Completes points[from, to) onto `out`, the last known altitude carried in `carried`. */
function completeSome(
  points: readonly TrackPoint[],
  out: ReplayPoint[],
  from: number,
  to: number,
  carried: { altitude: number },
): void {
  const t0 = points[0]?.timeMs ?? 0;
  let altitude = carried.altitude;
  for (let i = from; i < to; i++) {
    const p = points[i]!;
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
  carried.altitude = altitude;
}
