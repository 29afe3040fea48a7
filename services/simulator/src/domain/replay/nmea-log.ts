import { parseNmeaSentence } from '../nmea-ingest.js';
import { linesOf, type TrackText } from './text-parts.js';
import { type Pause, Problems, type Track, type TrackPoint } from './track.js';

/** Lines read between two turns of the event loop. */
const LINES_PER_SLICE = 250;
/** A sentence is at most 82 characters; a much longer line is not one, and is not parsed. */
const MAX_LINE_CHARS = 1024;

const DAY_MS = 86_400_000;

/** `hhmmss(.ss)` to milliseconds into the day; null when malformed. */
function timeOfDay(text: string | undefined): number | null {
  const m = /^(\d{2})(\d{2})(\d{2}(?:\.\d+)?)$/.exec(text ?? '');
  if (!m) return null;
  const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (h > 23 || min > 59 || s >= 61) return null;
  return Math.round(((h * 60 + min) * 60 + s) * 1000);
}

/** RMC's `ddmmyy` to the UTC midnight it names; null when malformed. */
function dateOf(text: string | undefined): number | null {
  const m = /^(\d{2})(\d{2})(\d{2})$/.exec(text ?? '');
  if (!m) return null;
  const [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (d < 1 || d > 31 || mo < 1 || mo > 12) return null;
  return Date.UTC(y < 80 ? 2000 + y : 1900 + y, mo - 1, d);
}

async function firstDate(text: TrackText, pause: Pause): Promise<number | null> {
  for (const [i, raw] of linesOf(text, MAX_LINE_CHARS)) {
    if (i % LINES_PER_SLICE === LINES_PER_SLICE - 1) await pause();
    if (raw.length > MAX_LINE_CHARS || !raw.includes('RMC,')) continue;
    const sentence = raw.slice(Math.max(0, raw.indexOf('$'))).trim();
    const parsed = parseNmeaSentence(sentence);
    if (!parsed.ok || parsed.sentence !== 'RMC' || parsed.fields === null) continue;
    const date = dateOf(sentence.split(',')[9]);
    if (date !== null) return date;
  }
  return null;
}

/**
 * An NMEA log: GGA (position, altitude) and RMC (position, speed, track, date) sentences; the ones
 * with the same time stamp make one point. A line with a bad checksum, bad fields or no time is
 * skipped and counted; other sentence types and fix-less sentences are passed over. Without any RMC
 * date the log is placed on 1 January 1970; a time that runs backwards past midnight moves to the next day.
 * A slice of lines at a time, with `pause` between them, like the GPX reader.
 */
export async function parseNmeaLog(text: TrackText, pause: Pause): Promise<Track> {
  const problems = new Problems();
  const points: TrackPoint[] = [];
  // GGA lines before the first RMC belong to that RMC's day.
  let day = (await firstDate(text, pause)) ?? 0;
  let lastTimeOfDay = -1;
  for (const [i, raw] of linesOf(text, MAX_LINE_CHARS)) {
    if (i % LINES_PER_SLICE === LINES_PER_SLICE - 1) await pause();
    if (raw.length > MAX_LINE_CHARS) {
      problems.add(`line ${i + 1}: too long for an NMEA sentence`);
      continue;
    }
    const line = raw.replace(/\0/g, '').trim();
    if (line === '') continue;
    const dollar = line.indexOf('$');
    const sentence = dollar >= 0 ? line.slice(dollar) : line;
    const parsed = parseNmeaSentence(sentence);
    if (!parsed.ok) {
      problems.add(`line ${i + 1}: ${parsed.reason}`);
      continue;
    }
    if ((parsed.sentence !== 'GGA' && parsed.sentence !== 'RMC') || parsed.fields === null) continue;
    const f = sentence.slice(1, sentence.lastIndexOf('*')).split(',');
    const tod = timeOfDay(f[1]);
    if (tod === null) {
      problems.add(`line ${i + 1}: ${parsed.sentence} without a valid time`);
      continue;
    }
    if (parsed.sentence === 'RMC') {
      const date = dateOf(f[9]);
      if (date !== null) day = date;
    } else if (tod < lastTimeOfDay - DAY_MS / 2) {
      day += DAY_MS;
    }
    lastTimeOfDay = tod;
    const timeMs = day + tod;
    const { lat, lon, altitude_ft, speed_kts, heading } = parsed.fields;
    if (lat === undefined || lon === undefined) continue;
    const last = points[points.length - 1];
    if (last && last.timeMs === timeMs) {
      // The other sentence of the same second: it adds what it carries.
      last.altitude_ft = altitude_ft ?? last.altitude_ft;
      last.speed_kts = speed_kts ?? last.speed_kts;
      last.heading = heading ?? last.heading;
      continue;
    }
    if (last && timeMs < last.timeMs) {
      problems.add(`line ${i + 1}: time runs backwards`);
      continue;
    }
    points.push({
      timeMs,
      lat,
      lon,
      altitude_ft: altitude_ft ?? null,
      speed_kts: speed_kts ?? null,
      heading: heading ?? null,
    });
  }
  return { format: 'nmea', points, skipped: problems.skipped, problems: problems.first };
}
