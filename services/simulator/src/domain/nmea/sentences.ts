/**
 * NMEA-0183 v2.3 sentence bodies (without `$`, checksum and CR LF). Talker GP, fix mode A
 * (autonomous) on the sentences that carry the 2.3 FAA mode indicator.
 */
import {
  dateField,
  decimalField,
  frame,
  latField,
  lonField,
  pad,
  signedField,
  timeField,
  trackField,
  zdaDateFields,
} from './format.js';
import type { Sky } from './sky.js';

const METRES_PER_FOOT = 0.3048;
const KMH_PER_KNOT = 1.852;
// Speeds beyond this are not an aircraft; the bound also keeps every sentence within 82 characters.
const MAX_KTS = 9999;

export interface NmeaFix {
  lat: number;
  lon: number;
  altitude_ft: number;
  speed_kts: number;
  /** Track over ground, degrees true. */
  track: number;
  /** True heading for HDT; defaults to the track (no wind, no crab). */
  heading?: number;
  /** UTC milliseconds since the epoch. */
  timeMs: number;
  /** Geoid separation in metres (WGS-84 ellipsoid minus MSL); 0 when not given. */
  geoidSeparation_m?: number;
}

export function gga(f: NmeaFix, sky: Sky): string {
  const altM = signedField(f.altitude_ft * METRES_PER_FOOT, 1, -9999, 99999);
  const sep = signedField(f.geoidSeparation_m ?? 0, 1, -999, 999);
  return frame(
    `GPGGA,${timeField(f.timeMs)},${latField(f.lat)},${lonField(f.lon)},1,${pad(sky.used.length, 2)},` +
      `${sky.hdop.toFixed(1)},${altM},M,${sep},M,,`,
  );
}

export function rmc(f: NmeaFix): string {
  return frame(
    `GPRMC,${timeField(f.timeMs)},A,${latField(f.lat)},${lonField(f.lon)},` +
      `${decimalField(f.speed_kts, 1, MAX_KTS)},${trackField(f.track)},${dateField(f.timeMs)},,,A`,
  );
}

export function gll(f: NmeaFix): string {
  return frame(`GPGLL,${latField(f.lat)},${lonField(f.lon)},${timeField(f.timeMs)},A,A`);
}

export function gsa(sky: Sky): string {
  const prns: string[] = [];
  for (let i = 0; i < 12; i++) {
    const s = sky.used[i];
    prns.push(s ? pad(s.prn, 2) : '');
  }
  return frame(
    `GPGSA,A,3,${prns.join(',')},${sky.pdop.toFixed(1)},${sky.hdop.toFixed(1)},${sky.vdop.toFixed(1)}`,
  );
}

/** One GSV sentence per four satellites in view (at least one sentence, even for an empty sky). */
export function gsv(sky: Sky): string[] {
  const sats = sky.inView;
  const total = Math.max(1, Math.ceil(sats.length / 4));
  const out: string[] = [];
  for (let m = 0; m < total; m++) {
    let body = `GPGSV,${total},${m + 1},${pad(sats.length, 2)}`;
    for (const s of sats.slice(m * 4, m * 4 + 4)) {
      body += `,${pad(s.prn, 2)},${pad(s.elevation, 2)},${pad(s.azimuth, 3)},${pad(s.snr, 2)}`;
    }
    out.push(frame(body));
  }
  return out;
}

export function hdt(f: NmeaFix): string {
  return frame(`GPHDT,${trackField(f.heading ?? f.track)},T`);
}

export function vtg(f: NmeaFix): string {
  const kts = Math.min(Math.max(0, Number.isFinite(f.speed_kts) ? f.speed_kts : 0), MAX_KTS);
  return frame(
    `GPVTG,${trackField(f.track)},T,,M,${decimalField(kts, 1, MAX_KTS)},N,` +
      `${decimalField(kts * KMH_PER_KNOT, 1, MAX_KTS * KMH_PER_KNOT)},K,A`,
  );
}

export function zda(f: NmeaFix): string {
  return frame(`GPZDA,${timeField(f.timeMs)},${zdaDateFields(f.timeMs)},00,00`);
}
