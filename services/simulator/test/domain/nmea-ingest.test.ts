import { describe, expect, it } from 'vitest';
import { buildSentences, frame } from '../../src/domain/nmea/index.js';
import { parseNmeaSentence } from '../../src/domain/nmea-ingest.js';
import { parseReceiverLine, splitDatagram } from '../../src/domain/receiver-parse.js';

const ALL = {
  gpgga: true,
  gprmc: true,
  gpgll: true,
  gpgsa: true,
  gpgsv: true,
  gphdt: true,
  gpvtg: true,
  gpzda: true,
};

const parse = (sentence: string) => parseNmeaSentence(sentence.trim());

describe('NMEA sentences as receiver input', () => {
  it('reads back what the sender writes: GGA altitude, RMC speed and track, GLL and VTG', () => {
    const fix = {
      lat: -33.946111,
      lon: 151.177222,
      altitude_ft: 21,
      speed_kts: 142.5,
      track: 57.3,
      timeMs: Date.UTC(2026, 5, 1, 12, 0, 0),
    };
    const out = new Map<string, ReturnType<typeof parse>>();
    for (const s of buildSentences(fix, ALL)) out.set(s.slice(3, 6), parse(s));
    const fields = (type: string) => {
      const r = out.get(type);
      if (!r?.ok) throw new Error(`${type} refused: ${JSON.stringify(r)}`);
      return r.fields;
    };
    const gga = fields('GGA')!;
    // ddmm.mmmm: a ten-thousandth of a minute is 1.7e-6 degrees.
    expect(gga.lat).toBeCloseTo(fix.lat, 5);
    expect(gga.lon).toBeCloseTo(fix.lon, 5);
    // GGA carries metres with one decimal.
    expect(gga.altitude_ft).toBeCloseTo(21, 0);
    expect(gga.speed_kts).toBeUndefined();
    expect(fields('RMC')).toMatchObject({ speed_kts: 142.5, heading: 57.3 });
    expect(fields('RMC')!.lat).toBeCloseTo(fix.lat, 5);
    expect(fields('GLL')!.lon).toBeCloseTo(fix.lon, 5);
    expect(fields('VTG')).toEqual({ heading: 57.3, speed_kts: 142.5 });
    // Sentences that carry no position are valid input, just not a fix.
    for (const t of ['GSA', 'GSV', 'HDT', 'ZDA'])
      expect(out.get(t)).toMatchObject({ ok: true, fields: null });
  });

  it('accepts other talkers, lower-case checksums and NMEA 2.0 sentences without the mode fields', () => {
    expect(parse('$GNGGA,092750.000,5321.6802,N,00630.3372,W,1,8,1.03,61.7,M,55.2,M,,*68')).toMatchObject({
      ok: true,
      sentence: 'GGA',
      fields: { altitude_ft: expect.closeTo(61.7 / 0.3048, 6) },
    });
    const gll = parse('$GPGLL,4916.45,S,12311.12,W*6c');
    expect(gll).toMatchObject({ ok: true, sentence: 'GLL' });
    if (gll.ok) {
      expect(gll.fields!.lat).toBeCloseTo(-(49 + 16.45 / 60), 9);
      expect(gll.fields!.lon).toBeCloseTo(-(123 + 11.12 / 60), 9);
    }
    // VTG with only km/h: converted to knots.
    const vtg = parse(frame('GPVTG,054.7,T,034.4,M,,N,185.2,K'));
    expect(vtg).toMatchObject({ ok: true, fields: { heading: 54.7 } });
    if (vtg.ok) expect(vtg.fields!.speed_kts).toBeCloseTo(100, 6);
    // North comes back as 360, like every heading the engine holds.
    expect(parse(frame('GPVTG,0.0,T,,M,5.0,N,9.3,K,A'))).toMatchObject({
      fields: { heading: 360, speed_kts: 5 },
    });
  });

  it('a sentence without a fix is valid but carries no position', () => {
    expect(parse(frame('GPRMC,120000.00,V,,,,,,,010626,,,N'))).toMatchObject({
      ok: true,
      fields: null,
      note: 'RMC status void',
    });
    expect(parse(frame('GPGGA,120000.00,,,,,0,00,99.9,,M,,M,,'))).toMatchObject({ ok: true, fields: null });
    expect(parse(frame('GPGLL,3723.2475,N,12158.3416,W,120000.00,V,N'))).toMatchObject({
      ok: true,
      fields: null,
    });
  });

  it('refuses a bad checksum and says so, and a sentence without one', () => {
    const good = frame('GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,').trim();
    const bad = `${good.slice(0, -2)}${good.endsWith('00') ? '01' : '00'}`;
    expect(parse(bad)).toEqual({
      ok: false,
      checksum: true,
      reason: expect.stringMatching(/^NMEA: bad checksum \(sent [0-9A-F]{2}, computed [0-9A-F]{2}\)$/),
    });
    // One changed character: the checksum no longer matches.
    expect(parse(good.replace('4807.038', '4807.039'))).toMatchObject({ ok: false, checksum: true });
    expect(parse('$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,')).toMatchObject({
      ok: false,
      checksum: false,
      reason: 'NMEA: checksum missing',
    });
  });

  it('refuses well-formed sentences whose values are impossible', () => {
    expect(parse(frame('GPRMC,120000,A,9130.0000,N,00000.0000,E,0.0,0.0,010626,,,A'))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('RMC: lat'),
    });
    expect(parse(frame('GPGLL,4875.00,N,01131.000,E,120000,A,A'))).toMatchObject({
      ok: false,
      reason: 'NMEA: GLL: bad latitude or longitude',
    });
    expect(parse(frame('GPRMC,120000,A,4807.038,X,01131.000,E,0.0,0.0,010626,,,A'))).toMatchObject({
      ok: false,
    });
    expect(parse(frame('GPRMC,120000,A,4807.038,N,01131.000,E,fast,0.0,010626,,,A'))).toMatchObject({
      ok: false,
      reason: 'NMEA: RMC: bad speed_kts',
    });
  });
});

describe('format detection and datagram splitting', () => {
  it('tells NMEA from CYGNUS and JSON by its first characters', () => {
    const [rmc] = buildSentences(
      { lat: 1, lon: 2, altitude_ft: 0, speed_kts: 0, track: 0, timeMs: 0 },
      { gpgga: false },
    );
    expect(parseReceiverLine(rmc!)).toMatchObject({ ok: true, format: 'nmea', sentence: 'RMC' });
    expect(parseReceiverLine('$CYGNUS:lat=1&lon=2&heading=3&alt=4&airspeed=5')).toMatchObject({
      format: 'cygnus',
    });
    expect(parseReceiverLine('hello')).toEqual({ ok: false, reason: 'not JSON, CYGNUS or NMEA' });
  });

  it('splits a burst of lines in one datagram, and keeps anything else whole', () => {
    expect(splitDatagram('$GPRMC,a*00\r\n$GPGGA,b*00\r\n')).toEqual(['$GPRMC,a*00', '$GPGGA,b*00']);
    expect(splitDatagram('{"lat":1}\n{"lat":2}\n')).toEqual(['{"lat":1}', '{"lat":2}']);
    const pretty = '{\n  "lat": 1,\n  "lon": 2\n}';
    expect(splitDatagram(pretty)).toEqual([pretty]);
    expect(splitDatagram('garbage\n$GPRMC')).toEqual(['garbage\n$GPRMC']);
    expect(splitDatagram('\r\n\r\n')).toEqual(['\r\n\r\n']);
  });
});
