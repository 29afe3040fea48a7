/**
 * Fuzzing kit shared by every package's fuzz tests: run counts, the fixed seed, and fast-check
 * arbitraries built from a JSON Schema (an OpenAPI operation's body, or a contract via
 * `z.toJSONSchema`): values that satisfy it, and values that break it in one place.
 *
 * Counts: `FUZZ_RUNS` overrides everything. Without it, in-process parsers run 10,000 cases and the
 * REST/MQTT surfaces run the CI-sized default their test file states in its header. `FUZZ_SEED`
 * replays another seed; fast-check prints seed and path of a failure so it reproduces exactly.
 */
import fc from 'fast-check';
import { ORDERED_KEYWORD, type OrderedPair, unorderedPairs } from '../ordered.js';

const envRuns = Number.parseInt(process.env.FUZZ_RUNS ?? '', 10);
/** FUZZ_RUNS when set (and positive). */
export const FUZZ_RUNS_SET = Number.isFinite(envRuns) && envRuns > 0 ? envRuns : null;
/** The seed every property starts from, so CI and a developer see the same cases. */
export const FUZZ_SEED = Number.parseInt(process.env.FUZZ_SEED ?? '', 10) || 20_260_601;

/** In-process parser surfaces: 10,000 cases unless FUZZ_RUNS says otherwise. */
export const parserRuns = (): number => FUZZ_RUNS_SET ?? 10_000;
/** REST/MQTT surfaces: FUZZ_RUNS cases in total when set, else the file's CI-sized default. */
export const surfaceRuns = (ciDefault: number): number => FUZZ_RUNS_SET ?? ciDefault;

export const fcParams = (numRuns: number) => ({ numRuns, seed: FUZZ_SEED });

/** The JSON Schema subset that zod's toJSONSchema and @hono/zod-openapi documents produce. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  /** OpenAPI 3.0: a flag on minimum/maximum; JSON Schema 2020-12: the bound itself. */
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  nullable?: boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  default?: unknown;
}

/** Resolves `$ref`s against the document they came from. */
export type Resolver = (s: JsonSchema) => JsonSchema;

export function resolverFor(root: unknown): Resolver {
  const resolve = (s: JsonSchema): JsonSchema => {
    if (!s.$ref) return s;
    let node: unknown = root;
    for (const part of s.$ref.replace(/^#\//, '').split('/'))
      node = (node as Record<string, unknown>)?.[part];
    if (!node) throw new Error(`unresolved $ref ${s.$ref}`);
    return resolve(node as JsonSchema);
  };
  return resolve;
}

/**
 * Nothing generated here may point a service at another machine: URLs and hosts are loopback with a
 * closed port, IPv4 addresses are 127.x, and free text never contains a scheme separator.
 */
export const LOOPBACK_HTTP = 'http://127.0.0.1:9/fuzz';
export const LOOPBACK_NOTIFIER = 'json://127.0.0.1:9/fuzz';
/** Loopback URLs with a closed port for a pattern that names its own schemes (a broker: mqtt://). */
const LOOPBACK_OTHER = ['mqtt', 'mqtts', 'ws', 'wss', 'https'].map(
  (scheme) => `${scheme}://127.0.0.1:9/fuzz`,
);
const HOSTISH = /(^|_)(host|server|ip|address|addr)s?($|_)/i;
const unschemed = (s: string) => s.replaceAll('://', ':/');

/** Free text: ASCII, full Unicode (lone surrogates included) and control characters. */
export const text = (max = 24): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.string({ maxLength: max }),
      fc.string({ unit: 'binary', maxLength: max }),
      fc.string({
        unit: fc.constantFrom('\0', '\n', '\r', '\t', '\u2028', '\uFEFF', '"', '\\', '%', '\uD800'),
        maxLength: 6,
      }),
    )
    .map(unschemed);

/** Any JSON value, with strings and keys scrubbed of schemes. */
export const jsonValue = (maxDepth = 3): fc.Arbitrary<unknown> =>
  fc.jsonValue({ maxDepth }).map((v) => JSON.parse(unschemed(JSON.stringify(v)) || 'null'));

function types(s: JsonSchema): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (s.type) return [s.type];
  if (s.properties) return ['object'];
  if (s.items) return ['array'];
  return [];
}

function numericBounds(s: JsonSchema): { lo: number; hi: number; loEx: boolean; hiEx: boolean } {
  let lo = s.minimum ?? Number.NEGATIVE_INFINITY;
  let hi = s.maximum ?? Number.POSITIVE_INFINITY;
  let loEx = s.exclusiveMinimum === true;
  let hiEx = s.exclusiveMaximum === true;
  if (typeof s.exclusiveMinimum === 'number') [lo, loEx] = [s.exclusiveMinimum, true];
  if (typeof s.exclusiveMaximum === 'number') [hi, hiEx] = [s.exclusiveMaximum, true];
  return { lo, hi, loEx, hiEx };
}

function validString(s: JsonSchema, name: string): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Math.max(min + 24, 24);
  const pattern = s.pattern ?? '';
  if (s.format === 'uri' || s.format === 'url' || pattern.includes(':\\/\\/') || pattern.includes('://')) {
    if (s.format) return fc.constant(LOOPBACK_HTTP);
    const re = new RegExp(pattern);
    const fits = [LOOPBACK_HTTP, ...LOOPBACK_OTHER].filter((u) => re.test(u));
    return re.test(LOOPBACK_NOTIFIER) || fits.length === 0
      ? fc.constant(LOOPBACK_NOTIFIER)
      : fc.constantFrom(...fits);
  }
  if (pattern.includes('25[0-5]')) return fc.integer({ min: 1, max: 254 }).map((n) => `127.0.0.${n}`);
  if (s.format === 'email') return fc.constant('fuzz@localhost');
  if (pattern) {
    const re = new RegExp(pattern);
    return fc.stringMatching(re).filter((v) => v.length >= min && v.length <= max && !v.includes('://'));
  }
  if (HOSTISH.test(name)) return fc.constantFrom('127.0.0.1', 'localhost');
  return fc.string({ minLength: min, maxLength: Math.min(max, min + 24) }).map(unschemed);
}

/** A value the schema accepts (best effort: refinements beyond JSON Schema are not known here). */
export function validValue(
  schema: JsonSchema,
  resolve: Resolver,
  name = '',
  depth = 0,
): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  let arb = validInner(s, resolve, name, depth);
  if (s.nullable) arb = fc.oneof(arb, fc.constant(null));
  return arb;
}

/**
 * An object's anyOf member with the object's own properties and required keys: a refinement written
 * as `{ required: ['interval_hours'] }` beside the properties (MaintenanceItemInput, HeartbeatRequest)
 * is generated as the whole object that meets it, not as a bare fragment. The object's property
 * schemas win over a member's shorter ones (their bounds are the real ones).
 */
function withParent(s: JsonSchema, member: JsonSchema): JsonSchema {
  if (!s.properties || member.$ref) return member;
  const { anyOf: _any, oneOf: _one, ...parent } = s;
  return {
    ...parent,
    ...member,
    properties: { ...member.properties, ...parent.properties },
    required: [...new Set([...(parent.required ?? []), ...(member.required ?? [])])],
  };
}

function validInner(s: JsonSchema, resolve: Resolver, name: string, depth: number): fc.Arbitrary<unknown> {
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return fc.oneof(...alts.map((a) => validValue(withParent(s, a), resolve, name, depth)));
  if (s.allOf?.[0]) return validValue(s.allOf[0], resolve, name, depth);
  const ts = types(s);
  if (ts.length > 1) return fc.oneof(...ts.map((type) => validInner({ ...s, type }, resolve, name, depth)));
  const { lo, hi, loEx, hiEx } = numericBounds(s);
  switch (ts[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      // A port that accepts nothing: a generated SMTP server or UDP target must not reach a real peer.
      if (/(^|_)port$/.test(name) && lo <= 9 && hi >= 9) return fc.constant(9);
      {
        const min = Math.max(Math.ceil(loEx ? lo + 1 : lo), Number.MIN_SAFE_INTEGER);
        const max = Math.min(Math.floor(hiEx ? hi - 1 : hi), Number.MAX_SAFE_INTEGER);
        // fc.integer stops at 32 bits; millisecond timestamps and their kin do not.
        if (min < -(2 ** 31) || max > 2 ** 31 - 1) {
          return fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
        }
        // Small values half the time: ids of rows the fuzzer itself created are small.
        return fc.oneof(
          fc.integer({ min, max: Math.min(max, Math.max(min, 0) + 8) }),
          fc.integer({ min, max }),
        );
      }
    case 'number':
      return fc.double({
        min: Number.isFinite(lo) ? lo : -1e9,
        max: Number.isFinite(hi) ? hi : 1e9,
        minExcluded: loEx,
        maxExcluded: hiEx,
        noNaN: true,
      });
    case 'string':
      return validString(s, name);
    case 'array': {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.min(s.maxItems ?? minLength + 3, minLength + 3);
      return fc.array(validValue(s.items ?? {}, resolve, name, depth + 1), { minLength, maxLength });
    }
    case 'object':
      return validObject(s, resolve, depth);
    default:
      return depth > 2 ? fc.constant(null) : jsonValue(2);
  }
}

function validObject(s: JsonSchema, resolve: Resolver, depth: number): fc.Arbitrary<unknown> {
  const props = s.properties ?? {};
  const fields = Object.fromEntries(
    Object.entries(props).map(([k, v]) => [k, validValue(v, resolve, k, depth + 1)]),
  );
  const record = fc.record(fields, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
  // Fields in an order the schema states beside it (ordered.ts): values that keep it.
  const order = (s as { [ORDERED_KEYWORD]?: OrderedPair[] })[ORDERED_KEYWORD];
  const known = order
    ? record.filter((v) => unorderedPairs(v as Record<string, unknown>, order).length === 0)
    : record;
  const extra = s.additionalProperties;
  if (!extra || extra === true || Object.keys(props).length > 0) return known;
  return fc
    .dictionary(
      fc.string({ minLength: 1, maxLength: 12 }).map(unschemed),
      validValue(extra, resolve, '', depth + 1),
      { maxKeys: 3 },
    )
    .map((d) => ({ ...d }));
}

/** Values of every JSON type except the ones the schema allows. */
function wrongType(s: JsonSchema): fc.Arbitrary<unknown> {
  const ts = new Set(types(s));
  if (ts.has('integer')) ts.add('number');
  if (s.nullable) ts.add('null');
  const all: Array<[string, fc.Arbitrary<unknown>]> = [
    ['string', fc.oneof(text(), fc.constantFrom('1', 'true', 'null', '', ' 1 ', '0x10', '1e3'))],
    ['number', fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer())],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(jsonValue(1), { maxLength: 3 })],
    ['object', fc.dictionary(text(8), jsonValue(1), { maxKeys: 3 })],
  ];
  const left = all.filter(([t]) => !ts.has(t)).map(([, a]) => a);
  return left.length ? fc.oneof(...left) : fc.constant(undefined);
}

/** A value that breaks the schema in one place: type, range, length, pattern, enum or shape. */
export function wrongValue(schema: JsonSchema, resolve: Resolver, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const ts = types(s);
  const options: fc.Arbitrary<unknown>[] = [wrongType(s)];
  if (s.enum || 'const' in s) {
    const members = [...(s.enum ?? []), s.const];
    const allowed = new Set(members.map((v) => JSON.stringify(v)));
    const strings = members.filter((v): v is string => typeof v === 'string');
    const near = strings.length ? [fc.constantFrom(...strings).map((v) => `${v.toUpperCase()} `)] : [];
    options.push(fc.oneof(...near, text(12)).filter((v) => !allowed.has(JSON.stringify(v))));
  }
  if (ts.includes('integer') || ts.includes('number')) {
    const { lo, hi } = numericBounds(s);
    const edges = [-1e308, 1e308, 2 ** 53 + 2, -(2 ** 53) - 2, 1e21];
    if (Number.isFinite(lo)) edges.push(lo - 1, lo - 1e-9);
    if (Number.isFinite(hi)) edges.push(hi + 1, hi + 1e-9);
    if (ts.includes('integer')) edges.push((Number.isFinite(lo) ? lo : 0) + 0.5);
    options.push(fc.constantFrom(...edges));
  }
  if (ts.includes('string')) {
    if (s.maxLength !== undefined) options.push(fc.constant('x'.repeat(s.maxLength + 1)));
    if ((s.minLength ?? 0) > 0) options.push(fc.constant(''));
    if (s.pattern) {
      const re = new RegExp(s.pattern);
      options.push(text(16).filter((v) => !re.test(v)));
    }
  }
  if (ts.includes('array')) {
    if (s.maxItems !== undefined) {
      const max = s.maxItems;
      options.push(validValue(s.items ?? {}, resolve, '', depth + 1).map((v) => Array(max + 1).fill(v)));
    }
    if ((s.minItems ?? 0) > 0) options.push(fc.constant([]));
    if (s.items && depth < 3) options.push(wrongValue(s.items, resolve, depth + 1).map((v) => [v]));
  }
  const alts = s.anyOf ?? s.oneOf;
  if (alts && depth < 3) {
    // A member's wrong value is often another member's valid one; it still probes the union.
    options.push(...alts.map((a) => wrongValue(a, resolve, depth + 1)));
  }
  if (ts.includes('object') && depth < 3) options.push(mutatedObject(s, resolve, depth));
  return fc.oneof(...options);
}

function mutatedObject(s: JsonSchema, resolve: Resolver, depth: number): fc.Arbitrary<unknown> {
  const props = Object.entries(s.properties ?? {});
  const base = validObject(s, resolve, depth) as fc.Arbitrary<Record<string, unknown>>;
  const mutations: fc.Arbitrary<Record<string, unknown>>[] = [];
  if (props.length > 0) {
    mutations.push(
      fc
        .tuple(base, fc.constantFrom(...props))
        .chain(([obj, [key, prop]]) =>
          wrongValue(prop, resolve, depth + 1).map((bad) => ({ ...obj, [key]: bad })),
        ),
    );
  }
  const required = s.required ?? [];
  if (required.length > 0) {
    mutations.push(
      fc.tuple(base, fc.constantFrom(...required)).map(([obj, key]) => {
        const { [key]: _gone, ...rest } = obj;
        return rest;
      }),
    );
  }
  if (s.additionalProperties === false) {
    const known = new Set(props.map(([k]) => k));
    mutations.push(
      fc
        .tuple(
          base,
          fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !known.has(k)),
          jsonValue(1),
        )
        .map(([obj, k, v]) => ({ ...obj, [k]: v })),
    );
  }
  return mutations.length ? fc.oneof(...mutations) : base;
}
