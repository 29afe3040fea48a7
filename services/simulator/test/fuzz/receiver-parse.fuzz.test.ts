/**
 * The receiver's line parser and its CYGNUS/JSON format detection, fuzzed in-process: 10,000 cases
 * per property by default (FUZZ_RUNS overrides, FUZZ_SEED replays). A few seconds in all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams, parserRuns, text } from '@outpost/contracts/testing';
import { MAX_LINE_LENGTH, parseReceiverLine } from '../../src/domain/receiver-parse.js';
import {
  cygnusLine,
  FIELDS,
  type Fix,
  fixArb,
  heading,
  jsonLine,
  NUMERIC,
  normalized,
} from './fuzz-helpers.js';

const expectPosition = (line: string, fix: Fix, format: 'json' | 'cygnus') => {
  const r = parseReceiverLine(line);
  expect(r, JSON.stringify(line)).toMatchObject({ ok: true, format });
  if (!r.ok || r.format === 'nmea') return;
  // Headings arrive normalised to (0, 360].
  expect(normalized(r.position)).toEqual(normalized({ ...fix, heading: heading(fix.heading) }));
  expect(r.position.heading).toBeGreaterThan(0);
  expect(r.position.heading).toBeLessThanOrEqual(360);
};

describe('receiver line parser (fuzz)', { timeout: 60_000 }, () => {
  it('never throws on garbage; refusals carry a reason and nothing non-finite gets through', () => {
    const garbage = fc.oneof(
      text(300),
      fc.uint8Array({ maxLength: 400 }),
      fc.string({ maxLength: 200 }).map((s) => `$CYGNUS:${s}`),
      fc.string({ maxLength: 200 }).map((s) => `{${s}`),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.nat({ max: 6000 }).map((n) => '{'.repeat(n)),
      fc.nat({ max: 6000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
      fc.constantFrom('$', '$CYGNUS', '$CYGNUS:', '{}', '{"lat":1e999}', '\0\0\0', '$CYGNUS:lat=NaN'),
    );
    fc.assert(
      fc.property(garbage, (line) => {
        let r: ReturnType<typeof parseReceiverLine> | undefined;
        expect(() => {
          r = parseReceiverLine(line);
        }).not.toThrow();
        if (!r) return;
        if (r.ok) {
          const p: Record<string, number | undefined> = r.format === 'nmea' ? (r.fields ?? {}) : r.position;
          for (const k of NUMERIC) if (p[k] !== undefined) expect(Number.isFinite(p[k]), k).toBe(true);
        } else {
          expect(r.reason.length).toBeGreaterThan(0);
        }
      }),
      fcParams(parserRuns()),
    );
  });

  it('round-trips generated CYGNUS sentences: any field order, extra keys, padding', () => {
    const cases = fc
      .tuple(fixArb, fc.boolean())
      .chain(([fix, withMagvar]) => cygnusLine(fix, withMagvar).map((line) => ({ fix, withMagvar, line })));
    fc.assert(
      fc.property(cases, ({ fix, withMagvar, line }) =>
        expectPosition(
          line,
          { ...fix, magvar: withMagvar ? fix.magvar : undefined, timestamp: undefined },
          'cygnus',
        ),
      ),
      fcParams(parserRuns()),
    );
  });

  it('round-trips generated JSON lines, timestamp passed through', () => {
    fc.assert(
      fc.property(
        fixArb.chain((fix) => jsonLine(fix).map((line) => ({ fix, line }))),
        ({ fix, line }) => expectPosition(line, { ...fix, magvar: undefined }, 'json'),
      ),
      fcParams(parserRuns()),
    );
  });

  it('tells the formats apart by the first character and refuses anything else by name', () => {
    const line = fixArb.chain((fix) => fc.oneof(cygnusLine(fix, true), jsonLine(fix)));
    const corrupt = fc.oneof(
      // Another first character: neither format.
      fc
        .tuple(
          line,
          fc
            .string({ minLength: 1, maxLength: 1 })
            .filter((c) => !'${ \t\r\n\0\u000b\u000c\u00a0\ufeff'.includes(c)),
        )
        .map(([l, c]) => ({ l: c + l.trim(), why: /not JSON, CYGNUS or NMEA/ })),
      // A $ sentence other than $CYGNUS: without a valid NMEA checksum (a misspelt tag, a cut sentence).
      fc
        .tuple(line, fc.constantFrom('$GPGGA,', '$CYGNVS:', '$cygnus:', '$CYGNUS;', '$ CYGNUS:'))
        .map(([l, tag]) => ({
          l: tag + l.trim().replace(/^\$CYGNUS:|^\{/, ''),
          why: /^NMEA: /,
        })),
      // Padded past the line limit.
      line.map((l) => ({ l: `${l}${'x'.repeat(MAX_LINE_LENGTH * 2)}`, why: /longer than/ })),
    );
    fc.assert(
      fc.property(corrupt, ({ l, why }) => {
        const r = parseReceiverLine(l);
        expect(r.ok, JSON.stringify(l.slice(0, 200))).toBe(false);
        if (!r.ok) expect(r.reason).toMatch(why);
      }),
      fcParams(parserRuns()),
    );
  });

  it('names the one field that is missing, not a number or out of range', () => {
    const bad = fc.constantFrom(
      '',
      'abc',
      '0x10',
      'Infinity',
      '1e400',
      '1,5',
      '--1',
      '1e',
      '.',
      '1.2.3',
      'NaN',
    );
    const outOf: Record<string, string> = {
      lat: '90.5',
      lon: '-180.01',
      alt: '100001',
      airspeed: '-0.5',
      heading: '721',
    };
    const c = fc
      .tuple(
        fixArb,
        fc.constantFrom(...FIELDS.cygnus),
        fc.oneof(bad, fc.constant('RANGE'), fc.constant('DROP')),
      )
      .map(([fix, field, v]) => {
        const parts = Object.entries(cygnusValues(fix))
          .filter(([k]) => !(k === field && v === 'DROP'))
          .map(([k, val]) => `${k}=${k === field && v !== 'DROP' ? (v === 'RANGE' ? outOf[k] : v) : val}`);
        return { line: `$CYGNUS:${parts.join('&')}`, field };
      });
    const j = fc
      .tuple(
        fixArb,
        fc.constantFrom(...FIELDS.json),
        fc.constantFrom<unknown>('1', null, true, [], {}, 1e6, -1e6, 'DROP'),
      )
      .map(([fix, field, v]) => {
        const obj: Record<string, unknown> = {
          lat: fix.lat,
          lon: fix.lon,
          alt_ft: fix.altitude_ft,
          speed_kts: fix.speed_kts,
          heading: fix.heading,
        };
        if (v === 'DROP') delete obj[field];
        else obj[field] = v;
        return { line: JSON.stringify(obj), field };
      });
    fc.assert(
      fc.property(fc.oneof(c, j), ({ line, field }) => {
        const r = parseReceiverLine(line);
        expect(r.ok, line).toBe(false);
        if (!r.ok) expect(r.reason, line).toContain(field);
      }),
      fcParams(parserRuns()),
    );
  });
});

function cygnusValues(fix: Fix): Record<string, string> {
  return {
    lat: String(fix.lat),
    lon: String(fix.lon),
    heading: String(fix.heading),
    alt: String(fix.altitude_ft),
    airspeed: String(fix.speed_kts),
  };
}
