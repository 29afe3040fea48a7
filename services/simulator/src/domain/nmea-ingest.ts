/**
 * NMEA-0183 input of the receiver: `$ttSSS,field,…*HH`, checksum verified. GGA, RMC, VTG and GLL carry
 * a position, altitude, speed or track; each sentence fills only what it carries, so a receiver builds
 * its fix from whichever of them arrive. Other well-formed sentences (GSA, GSV, HDT, ZDA, …) and
 * sentences that report no fix are valid input without a position. Never throws.
 */
import { simulator } from '@outpost/contracts';

const METRES_PER_FOOT = 0.3048;
const KNOTS_PER_KMH = 1 / 1.852;

export type NmeaFields = simulator.NmeaFixFields;

export type NmeaParseResult =
  /** `fields` is null when the sentence is well formed but carries no usable position. */
  | { ok: true; sentence: string; fields: NmeaFields | null; note?: string }
  | { ok: false; reason: string; checksum: boolean };

/** The sentence types whose fields become the received fix. */
export const FIX_SENTENCES = Object.freeze(['GGA', 'RMC', 'VTG', 'GLL']);

function fail(reason: string, checksum = false): NmeaParseResult {
  return { ok: false, reason: `NMEA: ${reason}`, checksum };
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** A plain decimal (`12`, `-3.5`, `.25`); null for empty text, NaN for anything else. */
function decimal(text: string | undefined): number | null {
  if (text === undefined || text === '') return null;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) return Number.NaN;
  return Number(text);
}

/** `ddmm.mmmm` / `dddmm.mmmm` with its hemisphere letter to signed degrees; null when both are empty. */
function angle(value: string | undefined, hemi: string | undefined, positive: string, negative: string) {
  if ((value ?? '') === '' && (hemi ?? '') === '') return null;
  const v = decimal(value);
  if (v === null || Number.isNaN(v) || v < 0) return Number.NaN;
  const degrees = Math.floor(v / 100);
  const minutes = v - degrees * 100;
  if (minutes >= 60) return Number.NaN;
  const abs = degrees + minutes / 60;
  if (hemi === positive) return abs;
  if (hemi === negative) return -abs;
  return Number.NaN;
}

interface Decoded {
  fields: Record<string, number>;
  /** Why the sentence carries no position although well formed (no fix, void status). */
  noFix?: string;
  bad?: string;
}

function latLon(f: string[], i: number, out: Record<string, number>): string | undefined {
  const lat = angle(f[i], f[i + 1], 'N', 'S');
  const lon = angle(f[i + 2], f[i + 3], 'E', 'W');
  if (lat === null && lon === null) return undefined;
  if (lat === null || lon === null || Number.isNaN(lat) || Number.isNaN(lon))
    return 'bad latitude or longitude';
  out.lat = lat;
  out.lon = lon;
  return undefined;
}

function number(f: string[], i: number, name: string, out: Record<string, number>, scale = 1) {
  const v = decimal(f[i]);
  if (v === null) return undefined;
  if (Number.isNaN(v)) return `bad ${name}`;
  out[name] = v * scale;
  return undefined;
}

function gga(f: string[]): Decoded {
  const fields: Record<string, number> = {};
  // Fix quality 0 is "invalid": the receiver has no position to report.
  if (f[6] === '0' || f[6] === '') return { fields, noFix: 'GGA without a fix' };
  const bad =
    latLon(f, 2, fields) ??
    (f[10] === 'M' || f[10] === '' || f[10] === undefined
      ? number(f, 9, 'altitude_ft', fields, 1 / METRES_PER_FOOT)
      : 'GGA altitude not in metres');
  return { fields, bad };
}

function rmc(f: string[]): Decoded {
  const fields: Record<string, number> = {};
  if (f[2] !== 'A') return { fields, noFix: 'RMC status void' };
  const bad = latLon(f, 3, fields) ?? number(f, 7, 'speed_kts', fields) ?? number(f, 8, 'heading', fields);
  return { fields, bad };
}

function gll(f: string[]): Decoded {
  const fields: Record<string, number> = {};
  // NMEA 2.0 and later carry a status; older talkers end after the longitude.
  if (f[6] !== undefined && f[6] !== 'A') return { fields, noFix: 'GLL status void' };
  return { fields, bad: latLon(f, 1, fields) };
}

function vtg(f: string[]): Decoded {
  const fields: Record<string, number> = {};
  if (f[9] === 'N') return { fields, noFix: 'VTG mode not valid' };
  let bad = number(f, 1, 'heading', fields) ?? number(f, 5, 'speed_kts', fields);
  if (!bad && fields.speed_kts === undefined) bad = number(f, 7, 'speed_kts', fields, KNOTS_PER_KMH);
  return { fields, bad };
}

const DECODERS: Record<string, (f: string[]) => Decoded> = { GGA: gga, RMC: rmc, GLL: gll, VTG: vtg };

/** `heading` as the engine keeps it: north is 360, never 0. */
function normalized(fields: Record<string, number>): Record<string, number> {
  const h = fields.heading;
  if (h !== undefined) {
    // Only an angle outside [0, 360) is folded, so 54.7 stays exactly 54.7.
    const r = h >= 0 && h < 360 ? h : ((h % 360) + 360) % 360;
    fields.heading = r === 0 ? 360 : r;
  }
  return fields;
}

/**
 * One sentence, already stripped of surrounding whitespace, starting with `$`. The checksum is
 * required: the spec's NMEA ends every sentence with `*<checksum>`.
 */
export function parseNmeaSentence(s: string): NmeaParseResult {
  const star = s.lastIndexOf('*');
  if (star === -1) return fail('checksum missing');
  if (s.length !== star + 3) return fail('checksum must be two hex digits after "*"');
  const hi = hexValue(s.charCodeAt(star + 1));
  const lo = hexValue(s.charCodeAt(star + 2));
  if (hi < 0 || lo < 0) return fail('checksum must be two hex digits after "*"');
  let x = 0;
  for (let i = 1; i < star; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return fail('non-printable character in the sentence');
    x ^= c;
  }
  if (x !== hi * 16 + lo) {
    return fail(
      `bad checksum (sent ${s.slice(star + 1)}, computed ${x.toString(16).toUpperCase().padStart(2, '0')})`,
      true,
    );
  }
  const f = s.slice(1, star).split(',');
  const address = f[0] ?? '';
  if (!/^[A-Z0-9]{3,6}$/.test(address)) return fail('bad address field');
  // Proprietary sentences ($P…) and every type but the four fix sentences carry nothing we use.
  const type = address.startsWith('P') ? address : address.slice(2);
  const decode = address.length === 5 && !address.startsWith('P') ? DECODERS[type] : undefined;
  if (!decode) return { ok: true, sentence: type, fields: null, note: 'sentence type not used' };
  const d = decode(f);
  if (d.bad) return fail(`${type}: ${d.bad}`);
  if (d.noFix) return { ok: true, sentence: type, fields: null, note: d.noFix };
  const checked = simulator.NmeaFixFields.safeParse(normalized(d.fields));
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return fail(`${type}: ${issue?.path.join('.') || 'fields'}: ${issue?.message ?? 'invalid'}`);
  }
  if (Object.keys(checked.data).length === 0) {
    return { ok: true, sentence: type, fields: null, note: `${type} with empty fields` };
  }
  return { ok: true, sentence: type, fields: checked.data };
}
