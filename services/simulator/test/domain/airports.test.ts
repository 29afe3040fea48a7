import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simulator } from '@outpost/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count, DEFAULT_SEARCH_LIMIT, foldText, list, lookup, search } from '../../src/airports/index.js';

const serviceDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The source table lives in the repository with its licence (data/airports/README.md).
const sourceCsv = join(serviceDir, 'data/airports/airports.csv');

describe('airport database', () => {
  it('holds the whole ~20k worldwide table, sorted, with the five documented fields and whether the elevation is known', () => {
    expect(count).toBe(20266);
    const all = list();
    expect(all).toHaveLength(count);
    const bad = all.filter(
      (a, i) =>
        (i > 0 && !(all[i - 1]!.icao < a.icao)) ||
        Object.keys(a).join() !== 'icao,name,lat,lon,elevation_ft,elevation_known' ||
        !simulator.Airport.safeParse(a).success ||
        !Number.isInteger(a.elevation_ft) ||
        a.icao !== a.icao.toUpperCase() ||
        Math.abs(a.lat) > 90 ||
        Math.abs(a.lon) > 180,
    );
    expect(bad).toEqual([]);
    expect(Object.isFrozen(all)).toBe(true);
  });

  it('looks up by exact code, normalising case', () => {
    expect(lookup('kjfk')).toEqual({
      icao: 'KJFK',
      name: 'John F. Kennedy International Airport',
      lat: 40.639447,
      lon: -73.779317,
      elevation_ft: 13,
      elevation_known: true,
    });
    expect(lookup(' EGLL ')?.elevation_ft).toBe(83);
    expect(lookup('KJF')).toBeUndefined();
    expect(lookup('ZZZZ')).toBeUndefined();
  });

  it('marks the airports whose source has no elevation (0 ft, elevation_known false), and keeps names with backticks intact', () => {
    expect(lookup('AAXX')).toMatchObject({
      name: 'Aeródromo de Punto Rothera',
      elevation_ft: 0,
      elevation_known: false,
    });
    expect(list().filter((a) => !a.elevation_known)).toHaveLength(1289);
    // A field really at sea level is not "unknown".
    expect(list().filter((a) => a.elevation_known && a.elevation_ft === 0).length).toBeGreaterThan(0);
    expect(search('Estrela D`Alva').length).toBe(1);
  });
});

describe('airport search', () => {
  it('returns [] for an empty or blank query', () => {
    expect(search('')).toEqual([]);
    expect(search('   ')).toEqual([]);
    expect(search('kjfk', 0)).toEqual([]);
  });

  it('matches an ICAO prefix case-insensitively, in code order, at most limit', () => {
    const r = search('kL');
    expect(r.length).toBe(DEFAULT_SEARCH_LIMIT);
    expect(r.every((a) => a.icao.startsWith('KL'))).toBe(true);
    expect(r.map((a) => a.icao)).toEqual([...r.map((a) => a.icao)].sort());
    expect(search('KLAX', 5)[0]!.icao).toBe('KLAX');
    expect(search('k', 3)).toHaveLength(3);
  });

  it('matches a name substring, case- and accent-insensitively', () => {
    expect(search('heathrow').map((a) => a.icao)).toContain('EGLL');
    expect(search('HEATHROW')[0]!.icao).toBe('EGLL');
    expect(search('aerodromo de punto rothera').map((a) => a.icao)).toEqual(['AAXX']);
    expect(search('no airport has this name')).toEqual([]);
  });

  it('ranks ICAO prefix matches before name matches and never repeats an airport', () => {
    const r = search('low', 50);
    const firstName = r.findIndex((a) => !a.icao.startsWith('LOW'));
    expect(firstName).toBeGreaterThan(0);
    expect(r.slice(firstName).every((a) => !a.icao.startsWith('LOW'))).toBe(true);
    expect(r.slice(firstName).every((a) => a.name.toLowerCase().includes('low'))).toBe(true);
    expect(new Set(r.map((a) => a.icao)).size).toBe(r.length);
    expect(r.map((a) => a.icao)).toContain('AYLO'); // "Lowai Airport"
  });

  it('honours large limits with a complete answer', () => {
    const expected = list().filter((a) => a.icao.startsWith('LOW') || a.name.toLowerCase().includes('low'));
    expect(search('low', 500)).toHaveLength(expected.length);
  });
});

describe('airport search agrees with a brute-force scan (property)', () => {
  const all = list();
  const folded = all.map((a) => foldText(a.name));
  const brute = (q: string, limit: number) => {
    const query = q.trim();
    if (query === '') return [];
    const upper = query.toUpperCase();
    const needle = foldText(query);
    const prefix = all.filter((a) => a.icao.startsWith(upper));
    const named = all.filter((a, i) => !a.icao.startsWith(upper) && folded[i]!.includes(needle));
    return [...prefix, ...named].slice(0, limit).map((a) => a.icao);
  };
  const fragment = fc
    .tuple(fc.nat(all.length - 1), fc.nat(40), fc.integer({ min: 1, max: 9 }))
    .map(([i, from, len]) => all[i]!.name.slice(from, from + len));
  it('for name fragments, codes and random text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fragment,
          fc.string({ maxLength: 5 }),
          fc.constantFrom('ø', 'ß', 'İ', 'airport', 'int', 'a'),
        ),
        fc.integer({ min: 1, max: 60 }),
        (q, limit) => {
          expect(search(q, limit).map((a) => a.icao)).toEqual(brute(q, limit));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('generated module', () => {
  it('is what scripts/build-airports.mjs produces from the CSV in data/airports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airports-'));
    try {
      const out = join(dir, 'airports-data.ts');
      execFileSync(process.execPath, [join(serviceDir, 'scripts/build-airports.mjs'), sourceCsv, out]);
      const committed = readFileSync(join(serviceDir, 'src/airports/airports-data.ts'), 'utf8');
      expect(readFileSync(out, 'utf8')).toBe(committed);
      expect(Buffer.byteLength(committed)).toBeLessThan(1.5 * 1024 * 1024);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
