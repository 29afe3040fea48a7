import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildSentences,
  computeSky,
  frame,
  type NmeaFix,
  nmeaChecksum,
  SENTENCE_KEYS,
} from '../../src/domain/nmea/index.js';
import { latField, lonField, timeField, trackField } from '../../src/domain/nmea/format.js';
import { minutesOf, parseLat, parseLon, parseSentence } from './nmea-test-parser.js';

const ALL = Object.fromEntries(SENTENCE_KEYS.map((k) => [k, true]));
// Half of the last printed digit (0.0001') in degrees, plus floating-point slack.
const LATLON_TOL = 0.00005 / 60 + 1e-9;

const edgeLat = fc.constantFrom(
  90,
  -90,
  0,
  -0,
  12 + 59.99996 / 60,
  -(45 + 59.99999 / 60),
  89.99999999,
  -89.99999999,
  0.0000001,
  -0.0000001,
);
const edgeLon = fc.constantFrom(
  180,
  -180,
  0,
  179.99999999,
  -179.99999999,
  99 + 59.99996 / 60,
  -(7 + 59.99995 / 60),
);
const lat = fc.oneof(edgeLat, fc.double({ min: -90, max: 90, noNaN: true }));
const lon = fc.oneof(edgeLon, fc.double({ min: -180, max: 180, noNaN: true }));
const track = fc.oneof(
  fc.constantFrom(0, 359.99, 360, 359.96, 0.04, 180),
  fc.double({ min: 0, max: 360, noNaN: true }),
);
const speed = fc.oneof(fc.constant(0), fc.double({ min: 0, max: 2000, noNaN: true }));
const fixArb: fc.Arbitrary<NmeaFix> = fc.record({
  lat,
  lon,
  altitude_ft: fc.double({ min: -1500, max: 60000, noNaN: true }),
  speed_kts: speed,
  track,
  timeMs: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31, 23, 59, 59, 999) }),
});

function angularDiff(a: number, b: number): number {
  const d = Math.abs((((a - b) % 360) + 360) % 360);
  return Math.min(d, 360 - d);
}

function expectedTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}.${p(Math.floor(d.getUTCMilliseconds() / 10))}`;
}

function expectedDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}${p(d.getUTCMonth() + 1)}${p(d.getUTCFullYear() % 100)}`;
}

describe('NMEA framing', () => {
  it('computes the checksum of the classic GGA example', () => {
    expect(nmeaChecksum('GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,')).toBe('47');
    expect(frame('GPHDT,0.0,T')).toMatch(/^\$GPHDT,0\.0,T\*[0-9A-F]{2}\r\n$/);
  });

  it('carries rounded minutes into the degrees and writes hemispheres', () => {
    expect(latField(12 + 59.99996 / 60)).toBe('1300.0000,N');
    expect(latField(-(45 + 59.99999 / 60))).toBe('4600.0000,S');
    expect(latField(48 + 7.038 / 60)).toBe('4807.0380,N');
    expect(latField(90)).toBe('9000.0000,N');
    expect(latField(-90)).toBe('9000.0000,S');
    expect(latField(-0.0000001)).toBe('0000.0000,N');
    expect(lonField(-180)).toBe('18000.0000,W');
    expect(lonField(180)).toBe('18000.0000,E');
    expect(lonField(99 + 59.99996 / 60)).toBe('10000.0000,E');
    expect(lonField(11 + 31 / 60)).toBe('01131.0000,E');
    expect(lonField(-0.5)).toBe('00030.0000,W');
  });

  it('writes time as hhmmss.ss and track in [0, 360)', () => {
    expect(timeField(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe('030405.67');
    expect(trackField(360)).toBe('0.0');
    expect(trackField(359.96)).toBe('0.0');
    expect(trackField(359.94)).toBe('359.9');
    expect(trackField(0)).toBe('0.0');
  });
});

describe('NMEA sentences over the whole globe (property)', () => {
  it('every sentence is well framed, ≤ 82 chars, and parses back to the fix', () => {
    fc.assert(
      fc.property(fixArb, (fix) => {
        const out = buildSentences(fix, ALL);
        const types = out.map((s) => parseSentence(s).type);
        expect(new Set(types)).toEqual(new Set(['RMC', 'GGA', 'GSA', 'GSV', 'GLL', 'VTG', 'HDT', 'ZDA']));
        let gsaUsed = -1;
        let gsaHdop = '';
        let ggaSats = -2;
        let ggaHdop = '';
        for (const s of out) {
          expect(s.length).toBeLessThanOrEqual(82);
          expect(/^[\x20-\x7e]*\r\n$/.test(s)).toBe(true);
          const p = parseSentence(s);
          expect(p.talker).toBe('GP');
          expect(p.checksum).toBe(p.computed);
          const f = p.fields;
          const checkPos = (la: string, ns: string, lo: string, ew: string) => {
            expect(minutesOf(la, 2)).toBeLessThan(60);
            expect(minutesOf(lo, 3)).toBeLessThan(60);
            expect(Math.abs(parseLat(la, ns) - fix.lat)).toBeLessThanOrEqual(LATLON_TOL);
            const dLon = Math.abs(parseLon(lo, ew) - fix.lon);
            expect(Math.min(dLon, 360 - dLon)).toBeLessThanOrEqual(LATLON_TOL);
          };
          switch (p.type) {
            case 'GGA': {
              expect(f).toHaveLength(14);
              expect(f[0]).toBe(expectedTime(fix.timeMs));
              checkPos(f[1]!, f[2]!, f[3]!, f[4]!);
              expect(f[5]).toBe('1');
              ggaSats = Number(f[6]);
              expect(ggaSats).toBeGreaterThanOrEqual(4);
              ggaHdop = f[7]!;
              expect(Math.abs(Number(f[8]) - fix.altitude_ft * 0.3048)).toBeLessThanOrEqual(0.05 + 1e-9);
              expect(f[9]).toBe('M');
              expect(f[10]).toMatch(/^-?\d+\.\d$/);
              expect(f[11]).toBe('M');
              break;
            }
            case 'RMC': {
              expect(f).toHaveLength(12);
              expect(f[0]).toBe(expectedTime(fix.timeMs));
              expect(f[1]).toBe('A');
              checkPos(f[2]!, f[3]!, f[4]!, f[5]!);
              expect(Number(f[6])).toBeCloseTo(fix.speed_kts, 1);
              expect(Number(f[7])).toBeGreaterThanOrEqual(0);
              expect(Number(f[7])).toBeLessThan(360);
              expect(angularDiff(Number(f[7]), fix.track)).toBeLessThanOrEqual(0.05 + 1e-9);
              expect(f[8]).toBe(expectedDate(fix.timeMs));
              expect(f[11]).toBe('A');
              break;
            }
            case 'GLL': {
              expect(f).toHaveLength(7);
              checkPos(f[0]!, f[1]!, f[2]!, f[3]!);
              expect(f[4]).toBe(expectedTime(fix.timeMs));
              expect(f.slice(5)).toEqual(['A', 'A']);
              break;
            }
            case 'VTG': {
              expect(f).toHaveLength(9);
              expect(angularDiff(Number(f[0]), fix.track)).toBeLessThanOrEqual(0.05 + 1e-9);
              expect([f[1], f[3], f[5], f[7], f[8]]).toEqual(['T', 'M', 'N', 'K', 'A']);
              expect(Number(f[4])).toBeCloseTo(fix.speed_kts, 1);
              expect(Math.abs(Number(f[6]) - fix.speed_kts * 1.852)).toBeLessThanOrEqual(0.05 + 1e-9);
              break;
            }
            case 'HDT': {
              expect(f[1]).toBe('T');
              expect(angularDiff(Number(f[0]), fix.track)).toBeLessThanOrEqual(0.05 + 1e-9);
              break;
            }
            case 'ZDA': {
              const d = new Date(fix.timeMs);
              expect(f[0]).toBe(expectedTime(fix.timeMs));
              expect(f.slice(1, 4).map(Number)).toEqual([
                d.getUTCDate(),
                d.getUTCMonth() + 1,
                d.getUTCFullYear(),
              ]);
              break;
            }
            case 'GSA': {
              expect(f).toHaveLength(17);
              expect(f[0]).toBe('A');
              expect(f[1]).toBe('3');
              gsaUsed = f.slice(2, 14).filter((x) => x !== '').length;
              gsaHdop = f[15]!;
              const [pdop, hdop, vdop] = f.slice(14).map(Number) as [number, number, number];
              expect(pdop).toBeCloseTo(Math.hypot(hdop, vdop), 0);
              break;
            }
            case 'GSV': {
              const [total, num, inView] = f.slice(0, 3).map(Number) as [number, number, number];
              expect(num).toBeLessThanOrEqual(total);
              const sats = (f.length - 3) / 4;
              expect(Number.isInteger(sats) && sats <= 4).toBe(true);
              expect(total).toBe(Math.max(1, Math.ceil(inView / 4)));
              for (let i = 0; i < sats; i++) {
                const [prn, el, az, snr] = f.slice(3 + i * 4, 7 + i * 4).map(Number) as number[];
                expect(prn).toBeGreaterThanOrEqual(1);
                expect(prn).toBeLessThanOrEqual(32);
                expect(el).toBeGreaterThanOrEqual(0);
                expect(el).toBeLessThanOrEqual(90);
                expect(az).toBeGreaterThanOrEqual(0);
                expect(az).toBeLessThan(360);
                expect(snr).toBeGreaterThanOrEqual(0);
                expect(snr).toBeLessThanOrEqual(99);
              }
              break;
            }
            default:
              throw new Error(`unexpected ${p.type}`);
          }
        }
        expect(ggaSats).toBe(gsaUsed);
        expect(ggaHdop).toBe(gsaHdop);
      }),
      { numRuns: 400 },
    );
  });

  it('emits only the selected sentences, GGA and RMC by default', () => {
    const fix: NmeaFix = { lat: 1, lon: 2, altitude_ft: 0, speed_kts: 0, track: 360, timeMs: 0 };
    expect(buildSentences(fix).map((s) => parseSentence(s).type)).toEqual(['RMC', 'GGA']);
    expect(
      buildSentences(fix, { gpgga: false, gprmc: false, gpzda: true }).map((s) => parseSentence(s).type),
    ).toEqual(['ZDA']);
    expect(buildSentences(fix, { gpgga: false, gprmc: false })).toEqual([]);
  });

  it('writes speed 0 and heading 360 as 0.0', () => {
    const fix: NmeaFix = { lat: 40, lon: -74, altitude_ft: 13, speed_kts: 0, track: 360, timeMs: 0 };
    const [rmc, vtg, hdt] = buildSentences(fix, { gpgga: false, gpvtg: true, gphdt: true });
    expect(rmc).toMatch(
      /^\$GPRMC,000000\.00,A,4000\.0000,N,07400\.0000,W,0\.0,0\.0,010170,,,A\*[0-9A-F]{2}\r\n$/,
    );
    expect(vtg).toMatch(/^\$GPVTG,0\.0,T,,M,0\.0,N,0\.0,K,A\*/);
    expect(hdt).toMatch(/^\$GPHDT,0\.0,T\*/);
  });
});

describe('GSV sky', () => {
  it('is deterministic and changes slowly', () => {
    const t0 = Date.UTC(2026, 5, 1, 12, 0, 0);
    expect(computeSky(51.5, -0.1, t0)).toEqual(computeSky(51.5, -0.1, t0));
    const a = computeSky(51.5, -0.1, t0);
    const b = computeSky(51.5, -0.1, t0 + 1000);
    for (const s of a.inView) {
      const same = b.inView.find((x) => x.prn === s.prn);
      if (!same) continue; // setting below the mask
      expect(Math.abs(same.elevation - s.elevation)).toBeLessThanOrEqual(1);
      expect(angularDiff(same.azimuth, s.azimuth)).toBeLessThanOrEqual(2);
    }
    const later = computeSky(51.5, -0.1, t0 + 2 * 3600_000);
    expect(later.inView.map((s) => [s.prn, s.elevation])).not.toEqual(
      a.inView.map((s) => [s.prn, s.elevation]),
    );
  });

  it('always has a usable fix (≥ 4 satellites) anywhere, any time', () => {
    fc.assert(
      fc.property(lat, lon, fc.integer({ min: 0, max: 4_000_000_000_000 }), (la, lo, t) => {
        const sky = computeSky(la, lo, t);
        expect(sky.used.length).toBeGreaterThanOrEqual(4);
        expect(sky.used.length).toBeLessThanOrEqual(12);
        expect(sky.inView.length).toBeLessThanOrEqual(16);
        expect(sky.hdop).toBeGreaterThan(0);
        expect(sky.hdop).toBeLessThan(2);
      }),
      { numRuns: 500 },
    );
  });
});
