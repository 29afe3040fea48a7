import { beforeAll, describe, expect, it } from 'vitest';
import {
  completeTrack,
  detectFormat,
  parseTrack,
  Player,
  type ReplayPoint,
} from '../../src/domain/replay/index.js';
import { gpx, nmeaLines, withChecksum } from '../helpers/tracks.js';

const FIXES = [
  { time: '2026-06-01T23:59:58Z', lat: 47.5, lon: -122.3, altM: 100, speedKts: 100, track: 10 },
  { time: '2026-06-02T00:00:00Z', lat: 47.51, lon: -122.29, altM: 200, speedKts: 120, track: 350 },
  { time: '2026-06-02T00:00:04Z', lat: 47.52, lon: -122.28, altM: 160, speedKts: 110, track: 20 },
];

describe('NMEA log', () => {
  it('pairs GGA and RMC of one second, crosses midnight by the RMC date, and counts bad lines', async () => {
    const lines = [
      'garbage that is no sentence',
      ...nmeaLines(FIXES[0]!),
      withChecksum('GPGSV,3,1,11,01,40,083,46'),
      nmeaLines(FIXES[1]!)[0].replace(/\*..$/, '*00'),
      nmeaLines(FIXES[1]!)[1],
      ...nmeaLines(FIXES[2]!),
      withChecksum('GPRMC,000005.00,V,,,,,,,020626,,,N'),
      withChecksum('GPGGA,9999,4731.0000,N,12217.0000,W,1,08,0.9,100.0,M,0.0,M,,'),
    ];
    const track = await parseTrack(lines.join('\r\n'));
    expect(track.format).toBe('nmea');
    expect(track.skipped).toBe(3);
    expect(track.problems[0]).toMatch(/^line 1: /);
    expect(track.problems[1]).toMatch(/line 5: NMEA: bad checksum/);
    expect(track.problems[2]).toMatch(/line 10: GGA without a valid time/);
    expect(track.points.map((p) => new Date(p.timeMs).toISOString())).toEqual(
      FIXES.map((f) => f.time.replace('Z', '.000Z')),
    );
    expect(track.points[0]).toMatchObject({ speed_kts: 100, heading: 10 });
    expect(track.points[0]!.altitude_ft).toBeCloseTo(100 / 0.3048, 6);
    expect(track.points[0]!.lat).toBeCloseTo(47.5, 6);
    // The second second lost its RMC: speed and track come from the geodesic to the next point.
    expect(track.points[1]!.speed_kts).toBeNull();
    const full = completeTrack(track.points);
    expect(full[1]!.speed_kts).toBeGreaterThan(0);
    expect(full.map((p) => p.t)).toEqual([0, 2000, 6000]);
  });
});

describe('GPX', () => {
  it('reads trkpt with ele and time, skips and counts the bad ones', async () => {
    const text = gpx(FIXES).replace('lat="47.51"', 'lat="north"');
    expect(detectFormat(text)).toBe('gpx');
    const track = await parseTrack(text);
    expect(track.points.length).toBe(2);
    expect(track.skipped).toBe(1);
    expect(track.problems).toEqual(['trkpt 2: bad lat/lon']);
  });

  it('untimed points are a second apart', async () => {
    const track = await parseTrack(gpx(FIXES.map(({ time: _t, ...f }) => f)));
    expect(track.points.map((p) => p.timeMs)).toEqual([0, 1000, 2000]);
  });

  it('refuses the whole file at a tag over 64 attributes or 4096 characters, points before it or not', async () => {
    const good = gpx(FIXES);
    const attrs = Array.from({ length: 65 }, (_, i) => ` a${i}="1"`).join('');
    const many = await parseTrack(good.replace('</trkseg>', `<trkpt lat="1" lon="2"${attrs}/></trkseg>`));
    expect(many.refused).toBe('Not a GPX file: a tag with more than 64 attributes at line 7');
    const long = await parseTrack(
      good.replace('</trkseg>', `<trkpt lat="1" lon="${'2'.repeat(5000)}"/></trkseg>`),
    );
    expect(long.refused).toMatch(/^Not a GPX file: a tag longer than 4096 characters at line \d+$/);
    // 64 short attributes are still a tag.
    const ok = Array.from({ length: 62 }, (_, i) => ` a${i}="1"`).join('');
    expect((await parseTrack(good.replace('<trkpt ', `<trkpt${ok} `))).refused).toBeUndefined();
  });

  it('a file of nothing readable gives no points', async () => {
    expect((await parseTrack('<gpx><trk></trk></gpx>')).points).toEqual([]);
    expect((await parseTrack('\u0000\u0001binary junk\n$GPGGA,bad')).points).toEqual([]);
  });
});

describe('Player', () => {
  let points: ReplayPoint[] = [];
  beforeAll(async () => {
    points = completeTrack((await parseTrack(gpx(FIXES))).points);
  });

  it('is each point at its time and interpolates between, at any speed', () => {
    const p = new Player(points, 0);
    expect(p.tick(0)).toMatchObject({ lat: 47.5, lon: -122.3 });
    expect(p.tick(1000).lat).toBeCloseTo(47.505, 9);
    expect(p.tick(2000).lat).toBeCloseTo(47.51, 9);
    p.speed = 4;
    // 1 s of clock at 4× is 4 s of track: from t=2 s to t=6 s, the last point.
    const end = p.tick(3000);
    expect(end.lat).toBeCloseTo(47.52, 9);
    expect(p.finished).toBe(true);
    expect(p.tick(10_000)).toMatchObject({ lat: 47.52, speed_kts: 0, vertical_fpm: 0 });
  });

  it('pauses, seeks and loops', () => {
    const p = new Player(points, 0);
    p.paused = true;
    expect(p.tick(5000).lat).toBe(47.5);
    p.paused = false;
    p.loop = true;
    p.seek(5000);
    expect(p.tick(7000).lat).toBeCloseTo(47.505, 9);
    expect(p.laps).toBe(2);
    expect(p.finished).toBe(false);
  });

  it('interpolates the heading the short way and altitude with its vertical speed', () => {
    const p = new Player(
      [
        { t: 0, lat: 0, lon: 0, altitude_ft: 0, speed_kts: 100, heading: 350 },
        { t: 2000, lat: 0, lon: 0, altitude_ft: 100, speed_kts: 100, heading: 10 },
      ],
      0,
    );
    const mid = p.tick(1000);
    expect(mid.heading).toBe(360);
    expect(mid.altitude_ft).toBe(50);
    expect(mid.vertical_fpm).toBe(3000);
  });
});
