import { Problems, type Track, type TrackPoint } from './track.js';

const FEET_PER_METRE = 1 / 0.3048;

const attr = (tag: string, name: string): string | undefined =>
  new RegExp(`\\b${name}\\s*=\\s*["']([^"']*)["']`).exec(tag)?.[1];

const child = (body: string, name: string): string | undefined =>
  new RegExp(`<(?:\\w+:)?${name}\\b[^>]*>([^<]*)</(?:\\w+:)?${name}>`).exec(body)?.[1]?.trim();

/**
 * A GPX file's track points (`trkpt`, else route points `rtept`) with `ele` and `time`. Read with
 * patterns rather than an XML parser: a GPX track is flat, and a point that does not read (bad
 * coordinates, a bad time, time running backwards) is skipped and counted instead of failing the file.
 * Points without any time are spaced one second apart.
 */
export function parseGpx(text: string): Track {
  const problems = new Problems();
  const points: TrackPoint[] = [];
  const kind = /<(?:\w+:)?trkpt\b/.test(text) ? 'trkpt' : 'rtept';
  const re = new RegExp(`<(?:\\w+:)?${kind}\\b([^>]*?)(?:/>|>([\\s\\S]*?)</(?:\\w+:)?${kind}>)`, 'g');
  let n = 0;
  let timed: boolean | null = null;
  for (const m of text.matchAll(re)) {
    n++;
    const tag = m[1] ?? '';
    const body = m[2] ?? '';
    const lat = Number(attr(tag, 'lat'));
    const lon = Number(attr(tag, 'lon'));
    if (!(Number.isFinite(lat) && Math.abs(lat) <= 90 && Number.isFinite(lon) && Math.abs(lon) <= 180)) {
      problems.add(`${kind} ${n}: bad lat/lon`);
      continue;
    }
    const eleText = child(body, 'ele');
    const ele = eleText === undefined ? null : Number(eleText);
    const timeText = child(body, 'time');
    const time = timeText === undefined ? null : Date.parse(timeText);
    if (timeText !== undefined && !Number.isFinite(time)) {
      problems.add(`${kind} ${n}: bad time ${JSON.stringify(timeText.slice(0, 40))}`);
      continue;
    }
    timed ??= time !== null;
    if (timed !== (time !== null)) {
      problems.add(`${kind} ${n}: ${timed ? 'no time' : 'a time among untimed points'}`);
      continue;
    }
    const last = points[points.length - 1];
    const timeMs = time ?? (last ? last.timeMs + 1000 : 0);
    if (last && timeMs <= last.timeMs) {
      problems.add(`${kind} ${n}: time does not move forward`);
      continue;
    }
    points.push({
      timeMs,
      lat,
      lon,
      altitude_ft: ele !== null && Number.isFinite(ele) ? ele * FEET_PER_METRE : null,
      speed_kts: null,
      heading: null,
    });
  }
  return { format: 'gpx', points, skipped: problems.skipped, problems: problems.first };
}
