/**
 * ForeFlight "network GPS" line, also read by Garmin Pilot: one UDP datagram per second to port
 * 49002, `XGPS{name},{lon},{lat},{alt_m},{track},{speed_ms}` with altitude in metres MSL, track in
 * degrees true and ground speed in metres per second.
 */
export const XGPS_PORT = 49002;

const METRES_PER_FOOT = 0.3048;
const MS_PER_KNOT = 1852 / 3600;

export interface XgpsInput {
  lat: number;
  lon: number;
  altitude_ft: number;
  track: number;
  speed_kts: number;
}

/** Commas would shift every field after the name, and control characters garble EFB device lists. */
export function sanitizeSimName(name: string): string {
  let out = '';
  for (const ch of name) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === ',' || c < 0x20 || c === 0x7f) continue;
    out += ch;
  }
  return out.trim();
}

function fixed(v: number, digits: number): string {
  const s = (Number.isFinite(v) ? v : 0).toFixed(digits);
  // "-0.0" reads as a sign glitch on an EFB; print zero plainly.
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

/** The datagram payload (no line terminator). Lat/lon 6 decimals (~0.1 m), alt and speed 1, track 2. */
export function formatXgps(name: string, p: XgpsInput): string {
  const track = ((p.track % 360) + 360) % 360;
  return (
    'XGPS' +
    sanitizeSimName(name) +
    ',' +
    fixed(p.lon, 6) +
    ',' +
    fixed(p.lat, 6) +
    ',' +
    fixed(p.altitude_ft * METRES_PER_FOOT, 1) +
    ',' +
    fixed(track >= 359.995 ? 0 : track, 2) +
    ',' +
    fixed(Math.max(0, p.speed_kts) * MS_PER_KNOT, 1)
  );
}
