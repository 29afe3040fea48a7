import { describe, expect, it } from 'vitest';
import { detectFormat, linesOf, parseTrack } from '../../src/domain/replay/index.js';
import { gpx, nmeaLines, withChecksum } from '../helpers/tracks.js';

/**
 * The upload route hands the readers the file in the pieces it arrived in, cut anywhere (inside a
 * line, between a `\r` and its `\n`, inside a tag). Read in pieces, every file reads exactly as it does
 * in one string.
 */
const FIXES = [0, 1, 2, 3, 4, 5].map((i) => ({
  time: new Date(Date.UTC(2026, 5, 1, 23, 59, 57 + i)).toISOString(),
  lat: 47.5 + i * 0.01,
  lon: -122.3,
  altM: 100 + i,
  speedKts: 100,
  track: 10,
}));

/** `text` cut every `size` characters. */
const cut = (text: string, size: number) => {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
};

/** The lines as one string read them: split at `\n`, a `\r` before it dropped. */
const plainLines = (text: string) =>
  text.split('\n').map((l, i, all) => (i < all.length - 1 ? l.replace(/\r$/, '') : l));

const NMEA = [
  'junk',
  ...FIXES.flatMap(nmeaLines),
  '',
  withChecksum('GPGGA,9999,4731.0000,N,12217.0000,W,1,08,0.9,100.0,M,0.0,M,,'),
  `$GPGGA,${'9'.repeat(1030)}`,
  `${'x'.repeat(1024)}\r`,
  'last line without an end',
].join('\r\n');

describe('a track read in pieces', () => {
  it('finds the same lines, whatever the cut, with overlong lines cut after their limit', () => {
    for (const size of [1, 2, 3, 7, 64, 1000, 1025, 100_000]) {
      const got = [...linesOf(cut(NMEA, size), 1024)].map(([i, l]) => [i, l.length > 1024 ? 'LONG' : l]);
      const want = plainLines(NMEA).map((l, i) => [i, l.length > 1024 ? 'LONG' : l]);
      expect(got, `pieces of ${size}`).toEqual(want);
    }
    expect([...linesOf([], 10)]).toEqual([[0, '']]);
    expect([...linesOf(['a\r', '\nb\n'], 10)]).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, ''],
    ]);
  });

  it('an NMEA log and a GPX track give the same points and problems in pieces as in one string', async () => {
    const track = gpx(FIXES).replace('<trkseg>', '<trkseg><trkpt lat="x" lon="1"></trkpt>');
    for (const text of [NMEA, track, `${track.slice(0, -40)}<unclosed`]) {
      const whole = await parseTrack(text);
      expect(whole.points.length + whole.skipped).toBeGreaterThan(0);
      for (const size of [1, 5, 333, 4096]) {
        expect(detectFormat(cut(text, size)), `pieces of ${size}`).toBe(detectFormat(text));
        expect(await parseTrack(cut(text, size)), `pieces of ${size}`).toEqual(whole);
      }
    }
  });
});
