/** Field encoders shared by the sentence builders. Everything rounds in integers so carries are exact. */

const HEX = '0123456789ABCDEF';

/** XOR of every character between `$` and `*`, as two uppercase hex digits. */
export function nmeaChecksum(body: string): string {
  let x = 0;
  for (let i = 0; i < body.length; i++) x ^= body.charCodeAt(i) & 0xff;
  return HEX[x >> 4]! + HEX[x & 15]!;
}

/** `$` + body + `*HH` + CR LF. */
export function frame(body: string): string {
  return '$' + body + '*' + nmeaChecksum(body) + '\r\n';
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * Degrees to NMEA `d…dmm.mmmm` with `degDigits` degree digits. The angle is rounded once, in units of
 * 0.0001 minute, so 59.99996' becomes the next whole degree instead of printing "60.0000".
 */
function angle(absDeg: number, degDigits: number): string {
  const units = Math.round(absDeg * 600000);
  const deg = Math.floor(units / 600000);
  const rem = units - deg * 600000;
  const min = Math.floor(rem / 10000);
  const frac = rem - min * 10000;
  return pad(deg, degDigits) + pad(min, 2) + '.' + pad(frac, 4);
}

function clampFinite(v: number, lo: number, hi: number): number {
  if (!Number.isFinite(v)) return 0;
  return Math.min(Math.max(v, lo), hi);
}

/** `ddmm.mmmm,N` (or S). A value that rounds to zero is reported as north. */
export function latField(lat: number): string {
  const v = clampFinite(lat, -90, 90);
  const text = angle(Math.abs(v), 2);
  return text + (v < 0 && Math.round(Math.abs(v) * 600000) !== 0 ? ',S' : ',N');
}

/** `dddmm.mmmm,E` (or W); longitudes are folded into [-180, 180] first. */
export function lonField(lon: number): string {
  let v = Number.isFinite(lon) ? lon : 0;
  if (v < -180 || v > 180) v = ((((v + 180) % 360) + 360) % 360) - 180;
  const text = angle(Math.abs(v), 3);
  return text + (v < 0 && Math.round(Math.abs(v) * 600000) !== 0 ? ',W' : ',E');
}

function utcParts(timeMs: number): { cs: number; d: Date } {
  const t = Number.isFinite(timeMs) ? Math.floor(timeMs / 10) * 10 : 0;
  return { cs: Math.floor(t / 10), d: new Date(t) };
}

/** `hhmmss.ss` UTC. */
export function timeField(timeMs: number): string {
  const { d, cs } = utcParts(timeMs);
  const centis = ((cs % 100) + 100) % 100;
  return (
    pad(d.getUTCHours(), 2) + pad(d.getUTCMinutes(), 2) + pad(d.getUTCSeconds(), 2) + '.' + pad(centis, 2)
  );
}

/** `ddmmyy` UTC. */
export function dateField(timeMs: number): string {
  const { d } = utcParts(timeMs);
  return pad(d.getUTCDate(), 2) + pad(d.getUTCMonth() + 1, 2) + pad(d.getUTCFullYear() % 100, 2);
}

/** `dd,mm,yyyy` UTC for ZDA. */
export function zdaDateFields(timeMs: number): string {
  const { d } = utcParts(timeMs);
  return pad(d.getUTCDate(), 2) + ',' + pad(d.getUTCMonth() + 1, 2) + ',' + pad(d.getUTCFullYear(), 4);
}

/** Track/heading in [0, 360) with one decimal; 359.96 prints as 0.0, never 360.0. */
export function trackField(deg: number): string {
  const tenths = Math.round(((((Number.isFinite(deg) ? deg : 0) % 360) + 360) % 360) * 10) % 3600;
  return (tenths / 10).toFixed(1);
}

/** Non-negative decimal with fixed digits; bounded so a runaway value cannot overflow 82 chars. */
export function decimalField(v: number, digits: number, max: number): string {
  return clampFinite(v, 0, max).toFixed(digits);
}

/** Signed decimal, bounded, never "-0.0". */
export function signedField(v: number, digits: number, min: number, max: number): string {
  const s = clampFinite(v, min, max).toFixed(digits);
  return Number(s) === 0 ? (0).toFixed(digits) : s;
}

export { pad };
