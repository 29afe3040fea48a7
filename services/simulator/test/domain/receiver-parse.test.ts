import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseReceiverLine } from '../../src/domain/receiver-parse.js';

describe('receiver line parser: JSON', () => {
  it('accepts the documented JSON with and without timestamp', () => {
    const r = parseReceiverLine(
      '{"lat":30.266925,"lon":-97.742798,"alt_ft":37000,"speed_kts":375.3,"heading":355.5,"timestamp":1700000000}',
    );
    expect(r).toEqual({
      ok: true,
      format: 'json',
      position: {
        lat: 30.266925,
        lon: -97.742798,
        altitude_ft: 37000,
        speed_kts: 375.3,
        heading: 355.5,
        timestamp: 1700000000,
      },
    });
    const r2 = parseReceiverLine('  {"lat":1,"lon":2,"alt_ft":3,"speed_kts":4,"heading":0}\r\n');
    expect(r2).toEqual({
      ok: true,
      format: 'json',
      position: { lat: 1, lon: 2, altitude_ft: 3, speed_kts: 4, heading: 360 },
    });
  });

  it('names the bad or missing field', () => {
    const missing = parseReceiverLine('{"lat":1,"lon":2,"alt_ft":3,"speed_kts":4}');
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.reason).toContain('heading');
    const range = parseReceiverLine('{"lat":91,"lon":2,"alt_ft":3,"speed_kts":4,"heading":5}');
    expect(range.ok).toBe(false);
    if (!range.ok) expect(range.reason).toContain('lat');
    const str = parseReceiverLine('{"lat":"1","lon":2,"alt_ft":3,"speed_kts":4,"heading":5}');
    expect(str.ok).toBe(false);
    expect(parseReceiverLine('{"lat":1,').ok).toBe(false);
    expect(parseReceiverLine('[1,2,3]').ok).toBe(false);
  });
});

describe('receiver line parser: CYGNUS', () => {
  it('parses the documented example: alt in feet, airspeed in knots, heading is the track', () => {
    const r = parseReceiverLine(
      '$CYGNUS:lat=30.266925&lon=-97.742798&heading=355.5&magvar=-6.0&alt=37000.0&airspeed=375.3',
    );
    expect(r).toEqual({
      ok: true,
      format: 'cygnus',
      position: {
        lat: 30.266925,
        lon: -97.742798,
        altitude_ft: 37000,
        speed_kts: 375.3,
        heading: 355.5,
        magvar: -6,
      },
    });
  });

  it('strips NUL padding and surrounding whitespace, and reads bytes', () => {
    const line = '\0\0 $CYGNUS:lat=1.5&lon=2.5&heading=90&alt=100&airspeed=120\0\0\0\r\n';
    const r = parseReceiverLine(line);
    expect(r.ok && r.format !== 'nmea' && r.position).toEqual({
      lat: 1.5,
      lon: 2.5,
      altitude_ft: 100,
      speed_kts: 120,
      heading: 90,
    });
    const bytes = new TextEncoder().encode(line);
    expect(parseReceiverLine(bytes)).toEqual(r);
  });

  it('accepts fields in any order and ignores unknown keys', () => {
    const r = parseReceiverLine('$CYGNUS:airspeed=0&alt=-20&foo=bar&heading=0&lon=-180&lat=-90');
    expect(r.ok && r.format !== 'nmea' && r.position).toEqual({
      lat: -90,
      lon: -180,
      altitude_ft: -20,
      speed_kts: 0,
      heading: 360,
    });
  });

  it('rejects missing, non-numeric, hex, infinite and out-of-range values with a reason', () => {
    const cases: Array<[string, string]> = [
      ['$CYGNUS:lat=1&lon=2&heading=3&alt=4', 'airspeed'],
      ['$CYGNUS:lat=abc&lon=2&heading=3&alt=4&airspeed=5', 'lat'],
      ['$CYGNUS:lat=0x10&lon=2&heading=3&alt=4&airspeed=5', 'lat'],
      ['$CYGNUS:lat=1&lon=Infinity&heading=3&alt=4&airspeed=5', 'lon'],
      ['$CYGNUS:lat=1&lon=2&heading=3&alt=&airspeed=5', 'alt'],
      ['$CYGNUS:lat=100&lon=2&heading=3&alt=4&airspeed=5', 'lat'],
      ['$CYGNUS:lat=1&lon=2&heading=3&alt=4&airspeed=-5', 'airspeed'],
      ['$CYGNUS:lat=1&lon=2&heading=3&alt=4&airspeed=1e400', 'airspeed'],
    ];
    for (const [line, field] of cases) {
      const r = parseReceiverLine(line);
      expect(r.ok, line).toBe(false);
      if (!r.ok) expect(r.reason, line).toContain(field);
    }
  });

  it('round-trips any valid position (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: 0, max: 359.999, noNaN: true }),
        fc.double({ min: -1500, max: 100000, noNaN: true }),
        fc.double({ min: 0, max: 5000, noNaN: true }),
        (lat, lon, heading, alt, airspeed) => {
          const r = parseReceiverLine(
            `$CYGNUS:lat=${lat}&lon=${lon}&heading=${heading}&magvar=0&alt=${alt}&airspeed=${airspeed}`,
          );
          expect(r).toMatchObject({ ok: true, format: 'cygnus' });
          if (!r.ok || r.format === 'nmea') return;
          expect(r.position.lat).toBe(lat === 0 ? 0 : lat);
          expect(r.position.lon).toBe(lon === 0 ? 0 : lon);
          expect(r.position.altitude_ft).toBe(alt === 0 ? 0 : alt);
          expect(r.position.speed_kts).toBe(airspeed === 0 ? 0 : airspeed);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('receiver line parser: garbage', () => {
  it('never throws on 10,000 random lines and never accepts a non-finite value', () => {
    const garbage = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.uint8Array({ maxLength: 300 }),
      fc.string({ maxLength: 120 }).map((s) => `$CYGNUS:${s}`),
      fc.string({ maxLength: 120 }).map((s) => `{${s}`),
      fc.json().map((j) => j),
      fc
        .array(
          fc.tuple(
            fc.constantFrom('lat', 'lon', 'heading', 'alt', 'airspeed', 'magvar', 'x', ''),
            fc.string({ maxLength: 12 }),
          ),
        )
        .map((kv) => `$CYGNUS:${kv.map(([k, v]) => `${k}=${v}`).join('&')}`),
    );
    fc.assert(
      fc.property(garbage, (line) => {
        const r = parseReceiverLine(line);
        if (r.ok) {
          const p = r.format === 'nmea' ? (r.fields ?? {}) : r.position;
          for (const v of Object.values(p)) expect(Number.isFinite(v)).toBe(true);
          if (p.heading !== undefined) {
            expect(p.heading).toBeGreaterThan(0);
            expect(p.heading).toBeLessThanOrEqual(360);
          }
        } else {
          expect(typeof r.reason).toBe('string');
        }
      }),
      { numRuns: 10_000 },
    );
  });

  it('refuses empty, whitespace-only, over-long and foreign lines', () => {
    expect(parseReceiverLine('')).toEqual({ ok: false, reason: 'empty line' });
    expect(parseReceiverLine(' \0\t\r\n')).toEqual({ ok: false, reason: 'empty line' });
    expect(parseReceiverLine(`{"lat":1${' '.repeat(5000)}}`).ok).toBe(false);
    // An NMEA sentence whose checksum does not match (the right one is 47).
    expect(
      parseReceiverLine('$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*48'),
    ).toMatchObject({
      ok: false,
      checksum: true,
    });
    expect(parseReceiverLine('hello').ok).toBe(false);
  });
});
