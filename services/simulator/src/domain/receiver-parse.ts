/**
 * Receiver input lines: JSON `{"lat","lon","alt_ft","speed_kts","heading","timestamp"?}`,
 * `$CYGNUS:lat=..&lon=..&heading=..&magvar=..&alt=..&airspeed=..` or an NMEA sentence, told apart by
 * their first characters. Hot path (one call per received datagram or TCP line), so CYGNUS is scanned
 * by hand. Never throws.
 */
import { simulator } from '@outpost/contracts';
import { type NmeaFields, parseNmeaSentence } from './nmea-ingest.js';

export interface ReceivedPosition {
  lat: number;
  lon: number;
  altitude_ft: number;
  speed_kts: number;
  /** Degrees true, normalised to (0, 360]. CYGNUS `heading` is the ground track. */
  heading: number;
  /** CYGNUS magnetic variation, when sent. */
  magvar?: number;
  /** JSON `timestamp`, passed through as sent. */
  timestamp?: number | string;
}

export type ReceiverParseResult =
  | { ok: true; position: ReceivedPosition; format: 'json' | 'cygnus' }
  /** `fields`: what this sentence carries (some of the position values), or null when it carries none. */
  | { ok: true; format: 'nmea'; sentence: string; fields: NmeaFields | null; note?: string }
  /** `checksum`: an NMEA sentence whose checksum does not match its text. */
  | { ok: false; reason: string; checksum?: boolean };

/** Longer lines are not position reports; refusing them early bounds the work per line. */
export const MAX_LINE_LENGTH = 2048;
const CYGNUS_PREFIX = '$CYGNUS:';
// Same bounds as the contracts' ReceiverJson, so both formats accept the same positions.
const LIMITS = {
  alt: [-1500, 100000],
  airspeed: [0, 5000],
  heading: [-360, 720],
} as const;

const decoder = new TextDecoder('utf-8', { fatal: false });

function fail(reason: string): ReceiverParseResult {
  return { ok: false, reason };
}

function normalizeHeading(h: number): number {
  const r = ((h % 360) + 360) % 360;
  return r === 0 ? 360 : r;
}

function isSpaceOrNul(c: number): boolean {
  return c === 0 || c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0xfeff;
}

/** Strips surrounding whitespace and NUL padding, and NULs inside the line (seen from C senders). */
function clean(raw: string): string {
  let start = 0;
  let end = raw.length;
  while (start < end && isSpaceOrNul(raw.charCodeAt(start))) start++;
  while (end > start && isSpaceOrNul(raw.charCodeAt(end - 1))) end--;
  let s = start === 0 && end === raw.length ? raw : raw.slice(start, end);
  if (s.indexOf('\0') !== -1) s = s.split('\0').join('');
  return s;
}

/**
 * Parses a plain decimal number (`-12`, `3.5`, `.5`, `1e3`) occupying exactly s[from, to), after
 * trimming spaces. Returns NaN for anything else, including hex, `Infinity` and empty text.
 */
function parseDecimal(s: string, from: number, to: number): number {
  while (from < to && s.charCodeAt(from) === 0x20) from++;
  while (to > from && s.charCodeAt(to - 1) === 0x20) to--;
  let i = from;
  if (i < to && (s.charCodeAt(i) === 0x2b || s.charCodeAt(i) === 0x2d)) i++;
  let digits = 0;
  while (i < to && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) {
    i++;
    digits++;
  }
  if (i < to && s.charCodeAt(i) === 0x2e) {
    i++;
    while (i < to && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) {
      i++;
      digits++;
    }
  }
  if (digits === 0) return Number.NaN;
  if (i < to && (s.charCodeAt(i) === 0x65 || s.charCodeAt(i) === 0x45)) {
    i++;
    if (i < to && (s.charCodeAt(i) === 0x2b || s.charCodeAt(i) === 0x2d)) i++;
    let exp = 0;
    while (i < to && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) {
      i++;
      exp++;
    }
    if (exp === 0) return Number.NaN;
  }
  if (i !== to) return Number.NaN;
  const v = +s.slice(from, to);
  return Number.isFinite(v) ? v : Number.NaN;
}

function inRange(v: number, lo: number, hi: number): boolean {
  return v >= lo && v <= hi;
}

function parseCygnus(s: string): ReceiverParseResult {
  let lat = Number.NaN;
  let lon = Number.NaN;
  let heading = Number.NaN;
  let alt = Number.NaN;
  let airspeed = Number.NaN;
  let magvar: number | undefined;
  let pos = CYGNUS_PREFIX.length;
  const n = s.length;
  while (pos <= n) {
    let amp = s.indexOf('&', pos);
    if (amp === -1) amp = n;
    const eq = s.indexOf('=', pos);
    if (eq !== -1 && eq < amp) {
      let ks = pos;
      let ke = eq;
      while (ks < ke && s.charCodeAt(ks) === 0x20) ks++;
      while (ke > ks && s.charCodeAt(ke - 1) === 0x20) ke--;
      const len = ke - ks;
      // Keys are compared in place to avoid allocating a substring per field.
      if (len === 3 && s.startsWith('lat', ks)) lat = parseDecimal(s, eq + 1, amp);
      else if (len === 3 && s.startsWith('lon', ks)) lon = parseDecimal(s, eq + 1, amp);
      else if (len === 3 && s.startsWith('alt', ks)) alt = parseDecimal(s, eq + 1, amp);
      else if (len === 7 && s.startsWith('heading', ks)) heading = parseDecimal(s, eq + 1, amp);
      else if (len === 8 && s.startsWith('airspeed', ks)) airspeed = parseDecimal(s, eq + 1, amp);
      else if (len === 6 && s.startsWith('magvar', ks)) {
        const m = parseDecimal(s, eq + 1, amp);
        if (!Number.isNaN(m)) magvar = m;
      }
    }
    pos = amp + 1;
  }
  if (Number.isNaN(lat)) return fail('CYGNUS: lat missing or not a number');
  if (Number.isNaN(lon)) return fail('CYGNUS: lon missing or not a number');
  if (Number.isNaN(heading)) return fail('CYGNUS: heading missing or not a number');
  if (Number.isNaN(alt)) return fail('CYGNUS: alt missing or not a number');
  if (Number.isNaN(airspeed)) return fail('CYGNUS: airspeed missing or not a number');
  if (!inRange(lat, -90, 90)) return fail('CYGNUS: lat out of range [-90, 90]');
  if (!inRange(lon, -180, 180)) return fail('CYGNUS: lon out of range [-180, 180]');
  if (!inRange(alt, LIMITS.alt[0], LIMITS.alt[1])) return fail('CYGNUS: alt out of range [-1500, 100000] ft');
  if (!inRange(airspeed, LIMITS.airspeed[0], LIMITS.airspeed[1]))
    return fail('CYGNUS: airspeed out of range [0, 5000] kt');
  if (!inRange(heading, LIMITS.heading[0], LIMITS.heading[1]))
    return fail('CYGNUS: heading out of range [-360, 720]');
  const position: ReceivedPosition = {
    lat,
    lon,
    altitude_ft: alt,
    speed_kts: airspeed,
    heading: normalizeHeading(heading),
  };
  if (magvar !== undefined) position.magvar = magvar;
  return { ok: true, position, format: 'cygnus' };
}

function parseJson(s: string): ReceiverParseResult {
  let data: unknown;
  try {
    data = JSON.parse(s);
  } catch {
    return fail('not JSON, CYGNUS or NMEA: invalid JSON');
  }
  const r = simulator.ReceiverJson.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.join('.') : 'body';
    return fail(`JSON: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  const v = r.data;
  const position: ReceivedPosition = {
    lat: v.lat,
    lon: v.lon,
    altitude_ft: v.alt_ft,
    speed_kts: v.speed_kts,
    heading: normalizeHeading(v.heading),
  };
  if (v.timestamp !== undefined) position.timestamp = v.timestamp;
  return { ok: true, position, format: 'json' };
}

export function parseReceiverLine(line: string | Uint8Array): ReceiverParseResult {
  try {
    const raw = typeof line === 'string' ? line : decoder.decode(line);
    if (raw.length > MAX_LINE_LENGTH * 2) return fail(`line longer than ${MAX_LINE_LENGTH} characters`);
    const s = clean(raw);
    if (s.length === 0) return fail('empty line');
    if (s.length > MAX_LINE_LENGTH) return fail(`line longer than ${MAX_LINE_LENGTH} characters`);
    const c = s.charCodeAt(0);
    if (c === 0x24 /* $ */) {
      if (s.startsWith(CYGNUS_PREFIX)) return parseCygnus(s);
      const r = parseNmeaSentence(s);
      if (!r.ok) return r.checksum ? r : { ok: false, reason: r.reason };
      return r.note === undefined
        ? { ok: true, format: 'nmea', sentence: r.sentence, fields: r.fields }
        : { ok: true, format: 'nmea', sentence: r.sentence, fields: r.fields, note: r.note };
    }
    if (c === 0x7b /* { */) return parseJson(s);
    return fail('not JSON, CYGNUS or NMEA');
  } catch (err) {
    return fail(`unparseable line: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The messages of one UDP datagram: a sender may pack several lines (an NMEA burst, JSON lines) into
 * one. It is split only when every non-blank line starts like a message (`$` or `{`), so a
 * pretty-printed JSON object and garbage stay one message each, counted once.
 */
export function splitDatagram(text: string): string[] {
  if (text.indexOf('\n') === -1) return [text];
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const c = line.charCodeAt(0);
    if (c !== 0x24 && c !== 0x7b) return [text];
    lines.push(line);
  }
  return lines.length === 0 ? [text] : lines;
}
