import { gga, gll, gsa, gsv, hdt, type NmeaFix, rmc, vtg, zda } from './sentences.js';
import { computeSky } from './sky.js';

export type { NmeaFix } from './sentences.js';
export { frame, nmeaChecksum } from './format.js';
export { computeSky, type Sky, type SkySatellite } from './sky.js';

/** Same keys as the contracts' NmeaSelection (POST /api/config/nmea). */
export type SentenceKey = 'gpgga' | 'gprmc' | 'gpgll' | 'gpgsa' | 'gpgsv' | 'gphdt' | 'gpvtg' | 'gpzda';
export type NmeaSelectionFull = Record<SentenceKey, boolean>;

/** Output order within one epoch: fix data first, the way common receivers emit a burst. */
export const SENTENCE_KEYS: readonly SentenceKey[] = Object.freeze([
  'gprmc',
  'gpgga',
  'gpgsa',
  'gpgsv',
  'gpgll',
  'gpvtg',
  'gphdt',
  'gpzda',
]);

/** GGA and RMC are what moving-map consumers need; the rest are opt-in. */
export const DEFAULT_NMEA_SELECTION: Readonly<NmeaSelectionFull> = Object.freeze({
  gpgga: true,
  gprmc: true,
  gpgll: false,
  gpgsa: false,
  gpgsv: false,
  gphdt: false,
  gpvtg: false,
  gpzda: false,
});

/**
 * Every selected sentence for one epoch, each framed as `$…*HH\r\n` and at most 82 characters.
 * Keys missing from `selection` fall back to DEFAULT_NMEA_SELECTION.
 */
export function buildSentences(fix: NmeaFix, selection: Partial<NmeaSelectionFull> = {}): string[] {
  const sel = { ...DEFAULT_NMEA_SELECTION, ...selection };
  const needSky = sel.gpgga || sel.gpgsa || sel.gpgsv;
  const sky = needSky ? computeSky(fix.lat, fix.lon, fix.timeMs) : null;
  const out: string[] = [];
  for (const key of SENTENCE_KEYS) {
    if (!sel[key]) continue;
    switch (key) {
      case 'gpgga':
        out.push(gga(fix, sky!));
        break;
      case 'gprmc':
        out.push(rmc(fix));
        break;
      case 'gpgll':
        out.push(gll(fix));
        break;
      case 'gpgsa':
        out.push(gsa(sky!));
        break;
      case 'gpgsv':
        out.push(...gsv(sky!));
        break;
      case 'gphdt':
        out.push(hdt(fix));
        break;
      case 'gpvtg':
        out.push(vtg(fix));
        break;
      case 'gpzda':
        out.push(zda(fix));
        break;
    }
  }
  return out;
}
