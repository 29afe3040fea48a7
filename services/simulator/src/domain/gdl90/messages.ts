/**
 * GDL 90 message bodies (ID byte plus data, before framing): the Heartbeat, Ownship Report and
 * Ownship Geometric Altitude of 560-1058-00 Rev A, and ForeFlight's ID message. Field layouts and
 * resolutions follow the spec; every multi-byte field is most significant byte first except the
 * heartbeat's time stamp.
 */

export const MESSAGE_ID = Object.freeze({
  heartbeat: 0x00,
  ownship: 0x0a,
  geoAltitude: 0x0b,
  traffic: 0x14,
  foreFlight: 0x65,
});

/** The GDL 90 port EFBs listen on. */
export const GDL90_PORT = 4000;

const LATLON_PER_DEGREE = 2 ** 23 / 180;
const SECONDS_PER_DAY = 86_400;

export interface OwnshipFix {
  lat: number;
  lon: number;
  /** Feet MSL; reported as pressure altitude too, since the simulated sky is a standard atmosphere. */
  altitude_ft: number;
  speed_kts: number;
  /** Degrees true. */
  track: number;
  vertical_fpm: number;
}

export interface OwnshipIdentity {
  /** The 24-bit participant address (see addressFromName). */
  address: number;
  /** Up to 8 characters of 0-9, A-Z and space; see callSign. */
  callSign: string;
  /** 1 is "light" (ICAO < 15,500 lb), what a trainer or sim rig flies. */
  emitterCategory: number;
}

function int24(v: number): [number, number, number] {
  const u = v & 0xffffff;
  return [(u >>> 16) & 0xff, (u >>> 8) & 0xff, u & 0xff];
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** Degrees to the 24-bit signed semicircle fraction the spec uses for latitude and longitude. */
export function encodeLatLon(deg: number): number {
  const lon = deg >= 180 ? deg - 360 : deg;
  return clamp(Math.round(lon * LATLON_PER_DEGREE), -(2 ** 23), 2 ** 23 - 1) & 0xffffff;
}

/** Seconds since 0000Z of the UTC day of `timeMs`. */
export function secondsOfDay(timeMs: number): number {
  return Math.floor((((timeMs / 1000) % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY);
}

export function heartbeat(gpsValid: boolean, timeMs: number): Uint8Array {
  const ts = secondsOfDay(timeMs);
  // Status 1: GPS position valid (bit 7), UAT initialized (bit 0). Status 2: time stamp bit 16
  // (bit 7), UTC OK (bit 0). The two message-count bytes stay zero: this unit receives no uplinks.
  const status1 = (gpsValid ? 0x80 : 0) | 0x01;
  const status2 = ((ts >>> 16) & 1 ? 0x80 : 0) | (gpsValid ? 0x01 : 0);
  return Uint8Array.from([MESSAGE_ID.heartbeat, status1, status2, ts & 0xff, (ts >>> 8) & 0xff, 0, 0]);
}

/** Ownship (ID 10) and Traffic (ID 20) reports share one layout; only the message ID differs. */
export function ownshipReport(
  fix: OwnshipFix | null,
  id: OwnshipIdentity,
  messageId: number = MESSAGE_ID.ownship,
): Uint8Array {
  const valid = fix !== null;
  const altCode = valid ? clamp(Math.round((fix.altitude_ft + 1000) / 25), 0, 0xffe) : 0xfff;
  const airborne = valid && fix.speed_kts >= 40;
  // Misc: airborne (bit 3), report updated not extrapolated (bit 2 clear), true track angle (01).
  const misc = (airborne ? 0x8 : 0) | 0x1;
  // NIC 11 / NACp 11: a simulated position is exact; zero says "unknown" when there is no fix.
  const integrity = valid ? 0xbb : 0x00;
  const hVel = valid ? clamp(Math.round(fix.speed_kts), 0, 0xffe) : 0xfff;
  const vVel = valid ? clamp(Math.round(fix.vertical_fpm / 64), -510, 510) & 0xfff : 0x800;
  const track = valid ? Math.round((((fix.track % 360) + 360) % 360) * (256 / 360)) & 0xff : 0;
  const sign = callSign(id.callSign);
  return Uint8Array.from([
    messageId,
    0x00, // no traffic alert; address type 0, ADS-B with ICAO address
    ...int24(id.address),
    ...int24(valid ? encodeLatLon(fix.lat) : 0),
    ...int24(valid ? encodeLatLon(fix.lon) : 0),
    (altCode >>> 4) & 0xff,
    ((altCode & 0x0f) << 4) | misc,
    integrity,
    (hVel >>> 4) & 0xff,
    ((hVel & 0x0f) << 4) | ((vVel >>> 8) & 0x0f),
    vVel & 0xff,
    track,
    id.emitterCategory & 0xff,
    ...Array.from(sign, (c) => c.charCodeAt(0)),
    0x00, // no emergency
  ]);
}

export function geometricAltitude(altitudeFt: number): Uint8Array {
  const alt = clamp(Math.round(altitudeFt / 5), -32768, 32767) & 0xffff;
  // Vertical figure of merit 10 m, no vertical warning.
  const vfom = 10;
  return Uint8Array.from([MESSAGE_ID.geoAltitude, alt >>> 8, alt & 0xff, (vfom >>> 8) & 0x7f, vfom & 0xff]);
}

function fixedAscii(text: string, length: number): number[] {
  const out = new Array<number>(length).fill(0);
  let i = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || c > 0x7e) continue;
    if (i >= length) break;
    out[i++] = c;
  }
  return out;
}

/**
 * ForeFlight's device ID message (0x65, sub-ID 0): version 1, no serial number, short and long
 * device name, and the capabilities mask. Bit 0 set says the geometric altitude is MSL, which is
 * what the simulator reports in message 11.
 */
export function foreFlightId(shortName: string, longName: string): Uint8Array {
  return Uint8Array.from([
    MESSAGE_ID.foreFlight,
    0x00,
    0x01,
    ...new Array<number>(8).fill(0xff),
    ...fixedAscii(shortName, 8),
    ...fixedAscii(longName, 16),
    0x00,
    0x00,
    0x00,
    0x01,
  ]);
}

/** The spec's call sign: 8 characters of 0-9, A-Z and space, left aligned and space padded. */
export function callSign(name: string): string {
  const cleaned = name.toUpperCase().replace(/[^0-9A-Z]/g, '');
  return (cleaned.slice(0, 8) || 'OUTPOST').padEnd(8, ' ');
}

/**
 * A stable 24-bit address from the simulator name, so an EFB recognises its own ownship across
 * restarts and two rigs with different names never share one.
 */
export function addressFromName(name: string): number {
  let h = 0x811c9dc5;
  for (const ch of name) {
    h ^= ch.codePointAt(0) ?? 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h ^ (h >>> 24)) & 0xffffff;
}
