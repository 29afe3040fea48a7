/** Simulator fuzzing: receiver-line arbitraries and the REST target of a running simulator. */
import fc from 'fast-check';
import {
  type FuzzRequest,
  type FuzzResponse,
  type RestTarget,
  sendOnFreshConnection,
} from '@outpost/contracts/testing';
import type { TestSim } from '../helpers/sim.js';

/** One receiver position, in the parser's output units. */
export interface Fix {
  lat: number;
  lon: number;
  altitude_ft: number;
  speed_kts: number;
  heading: number;
  magvar?: number | undefined;
  timestamp?: number | string | undefined;
}

export const NUMERIC = ['lat', 'lon', 'altitude_ft', 'speed_kts', 'heading'] as const;
export const FIELDS = {
  cygnus: ['lat', 'lon', 'heading', 'alt', 'airspeed'],
  json: ['lat', 'lon', 'alt_ft', 'speed_kts', 'heading'],
} as const;

const num = (min: number, max: number) => fc.double({ min, max, noNaN: true });
export const fixArb: fc.Arbitrary<Fix> = fc.record(
  {
    lat: num(-90, 90),
    lon: num(-180, 180),
    altitude_ft: num(-1500, 100000),
    speed_kts: num(0, 5000),
    heading: num(-360, 720),
    magvar: num(-180, 180),
    timestamp: fc.oneof(fc.integer({ min: 0 }), fc.string({ maxLength: 64 })),
  },
  { requiredKeys: ['lat', 'lon', 'altitude_ft', 'speed_kts', 'heading', 'magvar'] },
);

export const heading = (h: number) => {
  const r = ((h % 360) + 360) % 360;
  return r === 0 ? 360 : r;
};
/** For comparing: -0 is 0. */
export const normalized = (p: Fix) => ({
  lat: p.lat + 0,
  lon: p.lon + 0,
  altitude_ft: p.altitude_ft + 0,
  speed_kts: p.speed_kts + 0,
  heading: p.heading + 0,
  magvar: p.magvar === undefined ? undefined : p.magvar + 0,
  timestamp: p.timestamp,
});

const PAD = fc
  .array(fc.constantFrom(' ', '\0', '\t', '\r', '\n', '\r\n'), { maxLength: 4 })
  .map((a) => a.join(''));
/** Surrounding whitespace and NUL padding, as C senders leave it. */
export const padded = (line: fc.Arbitrary<string>) => fc.tuple(PAD, line, PAD).map(([a, l, b]) => a + l + b);

const KNOWN = new Set([
  'lat',
  'lon',
  'heading',
  'alt',
  'airspeed',
  'magvar',
  'alt_ft',
  'speed_kts',
  'timestamp',
]);
const chars = (set: string) => fc.constantFrom(...set);
const extraKey = fc
  .string({ unit: chars('abcdefghijklmnopqrstuvwxyz_'), minLength: 1, maxLength: 8 })
  .filter((k) => !KNOWN.has(k));
const extraValue = fc.string({ unit: chars('abcXYZ0123456789.+-'), maxLength: 8 });
const sp = fc.constantFrom('', ' ', '  ');

/** `$CYGNUS:` with the fix's fields in any order, optional spaces, and unknown keys mixed in. */
export function cygnusLine(fix: Fix, withMagvar: boolean): fc.Arbitrary<string> {
  const fields: Array<[string, number]> = [
    ['lat', fix.lat],
    ['lon', fix.lon],
    ['heading', fix.heading],
    ['alt', fix.altitude_ft],
    ['airspeed', fix.speed_kts],
  ];
  if (withMagvar && fix.magvar !== undefined) fields.push(['magvar', fix.magvar]);
  const known = fields.map(([k, v]) => fc.tuple(sp, sp).map(([a, b]) => `${a}${k}${b}=${a}${v}${b}`));
  const extras = fc.array(
    fc.tuple(extraKey, extraValue).map(([k, v]) => `${k}=${v}`),
    { maxLength: 3 },
  );
  const body = fc
    .tuple(fc.tuple(...known), extras)
    .chain(([k, e]) => fc.shuffledSubarray([...k, ...e], { minLength: k.length + e.length }))
    .map((parts) => `$CYGNUS:${parts.join('&')}`);
  return padded(body);
}

/** The documented JSON line, keys in any order, extra keys kept (the schema is loose). */
export function jsonLine(fix: Fix): fc.Arbitrary<string> {
  const entries: Array<[string, unknown]> = [
    ['lat', fix.lat],
    ['lon', fix.lon],
    ['alt_ft', fix.altitude_ft],
    ['speed_kts', fix.speed_kts],
    ['heading', fix.heading],
  ];
  if (fix.timestamp !== undefined) entries.push(['timestamp', fix.timestamp]);
  const extras = fc.array(fc.tuple(extraKey, fc.jsonValue({ maxDepth: 1 })), { maxLength: 2 });
  return padded(
    extras
      .chain((e) => fc.shuffledSubarray([...entries, ...e], { minLength: entries.length + e.length }))
      .map((all) => `{${all.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`),
  );
}

/**
 * What a REST rejection must not change: the simulator status, less `banner`, where a refused start
 * shows its reason by design (spec: "Server errors at start (banner texts)").
 */
async function status(sim: TestSim): Promise<unknown> {
  const res = await sim.api.get('/api/status');
  if (res.status !== 200) throw new Error(`GET /api/status -> ${res.status}`);
  const { banner: _banner, ...rest } = res.body;
  return rest;
}

/** The simulator's REST API over real HTTP with the session cookie of a logged-in browser tab. */
export function simulatorTarget(sim: TestSim): RestTarget {
  return {
    async send(req: FuzzRequest): Promise<FuzzResponse> {
      const headers: Record<string, string> = { ...req.headers };
      if (sim.api.cookie) headers.cookie = sim.api.cookie;
      const res = await fetch(sim.url + req.path, { method: req.method, headers, body: req.body });
      return { status: res.status, text: await res.text() };
    },
    snapshot: () => status(sim),
    async afterAccept(req) {
      // A logout or a fresh login answers 2xx: keep one valid session for the next requests.
      if (req.op.startsWith('POST /api/auth/')) {
        const res = await sim.api.login();
        if (res.status !== 200) throw new Error(`re-login failed: ${res.status}`);
      }
    },
  };
}

/** The same target, one connection per request: for bodies over the limit. */
export function simulatorLimitTarget(sim: TestSim): RestTarget {
  return {
    ...simulatorTarget(sim),
    send: (req) =>
      sendOnFreshConnection(sim.url, { ...req, headers: { ...req.headers, cookie: sim.api.cookie ?? '' } }),
  };
}
