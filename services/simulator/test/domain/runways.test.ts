import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simulator } from '@outpost/contracts';
import geodesic from 'geographiclib-geodesic';
import { describe, expect, it } from 'vitest';
import { lookup } from '../../src/airports/index.js';
import {
  findRunwayEnd,
  runwayCount,
  runwayEnds,
  runwaysAt,
  runwaysNear,
} from '../../src/airports/runways.js';

const serviceDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The runway extract lives in the repository with its provenance (data/airports/README.md).
const sourceCsv = join(serviceDir, 'data/airports/runways.csv');
const sourceRows = readFileSync(sourceCsv, 'utf8').trim().split('\n').slice(1);

const metres = (a: { lat: number; lon: number }, b: { lat: number; lon: number }) =>
  geodesic.Geodesic.WGS84.Inverse(a.lat, a.lon, b.lat, b.lon).s12!;

describe('runway table', () => {
  it('holds every runway of the extract, each of an airport in the airport table, with both ends placed', () => {
    expect(runwayCount()).toBe(sourceRows.length);
    expect(runwayCount()).toBe(11653);
    const codes = new Set(sourceRows.map((r) => r.split(',')[0]!));
    const bad: string[] = [];
    for (const icao of codes) {
      if (!lookup(icao)) bad.push(`${icao}: not an airport of the table`);
      for (const r of runwaysAt(icao)) {
        if (!simulator.Runway.safeParse(r).success) bad.push(`${icao} ${r.le.ident}: not a Runway`);
        // A threshold is on or near its own airfield: a swapped or mangled coordinate would not be.
        if (metres(r.le, lookup(icao)!) > 10_000) bad.push(`${icao} ${r.le.ident}: far from the airport`);
        if (metres(r.le, r.he) < 1) bad.push(`${icao} ${r.le.ident}: both ends at one point`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("gives KSFO's four runways with OurAirports' thresholds, true headings, size and surface", () => {
    expect(runwaysAt('ksfo').map((r) => `${r.le.ident}/${r.he.ident}`)).toEqual([
      '10L/28R',
      '10R/28L',
      '01R/19L',
      '01L/19R',
    ]);
    expect(runwayEnds('KSFO')).toContain('28R');
    const found = findRunwayEnd('KSFO', '28r');
    expect(found?.end).toEqual({
      ident: '28R',
      lat: 37.6135,
      lon: -122.357,
      elevation_ft: 13,
      heading_deg: 298,
    });
    expect(found?.runway).toMatchObject({ icao: 'KSFO', length_ft: 11870, width_ft: 200, surface: 'ASP' });
    // OurAirports' 28R threshold is 37.61349868774414, -122.35700225830078: rounding keeps it within 1 m.
    expect(metres(found!.end, { lat: 37.61349868774414, lon: -122.35700225830078 })).toBeLessThan(1);
  });

  it('finds an end however a person types it, and nothing for an unknown end or airport', () => {
    expect(findRunwayEnd('KSFO', ' 1r ')?.end.ident).toBe('01R');
    expect(findRunwayEnd('KSFO', '19L')?.end.heading_deg).toBe(208);
    expect(findRunwayEnd('KSFO', '27')).toBeUndefined();
    expect(findRunwayEnd('ZZZZ', '28R')).toBeUndefined();
    expect(runwaysAt('ZZZZ')).toEqual([]);
  });

  it('takes the heading from the runway line where OurAirports gives none', () => {
    // AGGN 14/32 has both thresholds but no le_/he_heading_degT in the source.
    const row = sourceRows.find((r) => r.startsWith('AGGN,') && r.split(',')[4] === '14')!.split(',');
    expect(row[8]).toBe('');
    const le = { lat: Number(row[5]), lon: Number(row[6]) };
    const he = { lat: Number(row[10]), lon: Number(row[11]) };
    const bearing = (a: typeof le, b: typeof le) =>
      (geodesic.Geodesic.WGS84.Inverse(a.lat, a.lon, b.lat, b.lon).azi1! + 360) % 360;
    expect(findRunwayEnd('AGGN', '14')!.end.heading_deg).toBeCloseTo(bearing(le, he), 0);
    expect(findRunwayEnd('AGGN', '32')!.end.heading_deg).toBeCloseTo(bearing(he, le), 0);
  });

  it('lists the runways around a point, nearest first, for the map', () => {
    const near = runwaysNear(37.62, -122.37, 5, 50);
    expect(near.filter((r) => r.icao === 'KSFO')).toHaveLength(4);
    expect(near.every((r) => metres(r.le, { lat: 37.62, lon: -122.37 }) < 5 * 1852 + 5000)).toBe(true);
    expect(runwaysNear(0, -140, 20, 50)).toEqual([]);
  });
});

describe('generated runway module', () => {
  it('is what scripts/build-runways.mjs produces from the extract in data/airports, and stays compact', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runways-'));
    try {
      const out = join(dir, 'runways-data.ts');
      execFileSync(process.execPath, [join(serviceDir, 'scripts/build-runways.mjs'), sourceCsv, out]);
      const committed = readFileSync(join(serviceDir, 'src/airports/runways-data.ts'), 'utf8');
      expect(readFileSync(out, 'utf8')).toBe(committed);
      expect(Buffer.byteLength(committed)).toBeLessThan(1024 * 1024);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
