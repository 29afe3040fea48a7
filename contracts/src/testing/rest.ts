/**
 * REST fuzzing driven by a service's own OpenAPI document: every operation gets generated path
 * params, query strings and bodies (any JSON, schema-shaped with one field broken, schema-valid, and
 * text that is not JSON), and every answer is checked the same way:
 *  - status < 500 (a 5xx is allowed only where the test names the operation and the exact detail),
 *  - a 4xx carries JSON with a string `detail`,
 *  - a 4xx (a rejection) leaves the service's observable state as it was.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { expect } from 'vitest';
import {
  fcParams,
  type JsonSchema,
  jsonValue,
  type Resolver,
  resolverFor,
  text,
  validValue,
  wrongValue,
} from './arbitraries.js';

export interface Operation {
  /** `METHOD /path/{param}` */
  key: string;
  method: string;
  path: string;
  pathParams: Array<{ name: string; schema: JsonSchema }>;
  queryParams: Array<{ name: string; schema: JsonSchema }>;
  body: JsonSchema | null;
}

export interface FuzzRequest {
  op: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Which generator made the body: json, wrong, valid, text, none. */
  kind: string;
}

export interface FuzzResponse {
  status: number;
  text: string;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
}
interface OpenApiOperation {
  parameters?: Array<{ name: string; in: string; schema?: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every operation of the document, in document order. */
export function operations(doc: unknown): { ops: Operation[]; resolve: Resolver } {
  const d = doc as OpenApiDoc;
  const resolve = resolverFor(doc);
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(d.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      // Parameters may be shared components ($ref), like schemas.
      const params = (op.parameters ?? []).map((p) => resolve(p as JsonSchema) as typeof p);
      const of = (where: string) =>
        params.filter((p) => p.in === where).map((p) => ({ name: p.name, schema: p.schema ?? {} }));
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: of('path'),
        queryParams: of('query'),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      });
    }
  }
  return { ops, resolve };
}

const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
/** encodeURIComponent refuses lone surrogates; a URL carries them as U+FFFD anyway. */
const encode = (s: string) => encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8'));

/** Characters that may stand raw in a URL path or query without changing its structure. */
const RAW = fc.constantFrom(
  '%',
  '%zz',
  '%00',
  '%E0%A4%A',
  '%2F',
  '..',
  '+',
  ';',
  '=',
  ' ',
  '"',
  '<',
  '\u00e9',
  '~',
);

function paramValue(schema: JsonSchema, resolve: Resolver): fc.Arbitrary<{ value: string; raw: boolean }> {
  const encoded = fc
    .oneof(
      validValue(schema, resolve).map(asText),
      wrongValue(schema, resolve).map(asText),
      text(16),
      fc.constantFrom('0', '-1', '1.5', '1e3', '0x10', 'NaN', 'Infinity', '99999999999999999999', ' 1', ''),
    )
    .map((value) => ({ value: encode(value), raw: false }));
  const raw = fc
    .array(RAW, { minLength: 1, maxLength: 3 })
    .map((parts) => ({ value: parts.join(''), raw: true }));
  return fc.oneof({ weight: 5, arbitrary: encoded }, { weight: 1, arbitrary: raw });
}

function pathArb(op: Operation, resolve: Resolver): fc.Arbitrary<string> {
  if (op.pathParams.length === 0) return fc.constant(op.path);
  return fc
    .tuple(...op.pathParams.map((p) => paramValue(p.schema, resolve)))
    .map((values) =>
      op.pathParams.reduce(
        (path, p, i) => path.replace(`{${p.name}}`, (values[i] as { value: string }).value || '%20'),
        op.path,
      ),
    );
}

function queryArb(op: Operation, resolve: Resolver): fc.Arbitrary<string> {
  const names = op.queryParams.map((p) => p.name);
  const pairs = op.queryParams.map((p) =>
    fc.option(
      paramValue(p.schema, resolve).map((v) => [p.name, v.value] as const),
      { nil: null, freq: 3 },
    ),
  );
  const extra = fc.array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(...(names.length ? names : ['x']), '__proto__', 'limit[]'),
        text(8).map(encode),
      ),
      text(12).map(encode),
    ),
    { maxLength: 2 },
  );
  return fc.tuple(fc.tuple(...pairs), extra).map(([known, more]) => {
    const all = [...known.filter((p) => p !== null), ...more];
    return all.length ? `?${all.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  });
}

/** Text that JSON.parse refuses. */
const notJson = fc
  .oneof(
    text(40),
    jsonValue(2)
      .map((v) => JSON.stringify(v))
      .map((s) => s.slice(0, Math.max(1, s.length - 1))),
    fc.constantFrom(
      '{',
      '[1,]',
      "{'a':1}",
      '{"a":1}x',
      'NaN',
      '\uFEFF{}',
      '{"a":}',
      'undefined',
      '{"a":1,,}',
    ),
  )
  .filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  });

const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/json; charset=utf-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=fuzz',
      'application/json; charset=utf-16',
      '',
    ),
  },
);

function bodyArb(op: Operation, resolve: Resolver): fc.Arbitrary<{ body?: string; kind: string }> {
  const json = jsonValue(3).map((v) => ({ body: JSON.stringify(v), kind: 'json' }));
  const garbage = notJson.map((body) => ({ body, kind: 'text' }));
  const none = fc.constant({ kind: 'none' });
  if (op.method === 'GET') return none;
  if (!op.body) return fc.oneof(none, json, garbage);
  const schema = op.body;
  return fc.oneof(
    { weight: 4, arbitrary: wrongValue(schema, resolve).map((v) => ({ body: asText(v), kind: 'wrong' })) },
    {
      weight: 2,
      arbitrary: validValue(schema, resolve).map((v) => ({ body: JSON.stringify(v), kind: 'valid' })),
    },
    { weight: 2, arbitrary: json },
    { weight: 2, arbitrary: garbage },
    { weight: 1, arbitrary: none },
  );
}

export function requestArb(op: Operation, resolve: Resolver): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(pathArb(op, resolve), queryArb(op, resolve), bodyArb(op, resolve), contentType)
    .map(([path, query, { body, kind }, ct]) => {
      const headers: Record<string, string> = {};
      if (body !== undefined && ct) headers['content-type'] = ct;
      return { op: op.key, method: op.method, path: path + query, headers, body, kind };
    });
}

/** Relative share of the cases an operation gets; slow operations (system probes) get fewer. */
export type Weight = (op: Operation) => number;
export const EVEN: Weight = () => 10;

/** Picks an operation by weight (evenly by default), then a request for it. */
export function anyRequest(
  ops: Operation[],
  resolve: Resolver,
  weight: Weight = EVEN,
): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...ops.map((op) => ({ arbitrary: requestArb(op, resolve), weight: weight(op) })));
}

export interface RestTarget {
  send(req: FuzzRequest): Promise<FuzzResponse>;
  /** What a rejection must not change (generator state, audit length, relay state...). */
  snapshot(): Promise<unknown>;
  /** After an accepted request, e.g. log in again after a logout revoked the token. */
  afterAccept?(req: FuzzRequest, res: FuzzResponse): Promise<void>;
  /** Named exceptions to "no 5xx": the operation key mapped to the one detail it may answer with. */
  allowed5xx?: Record<string, { status: number; detail: string }>;
}

export type Tally = Map<string, Map<number, number>>;

export const describeCase = (req: FuzzRequest, res: FuzzResponse) =>
  `${req.method} ${req.path} [${req.kind}, ${req.headers['content-type'] ?? 'no content-type'}] ` +
  `body=${JSON.stringify((req.body ?? '').slice(0, 300))} -> ${res.status} ${res.text.slice(0, 300)}`;

/** The checks every answer must pass, whatever was sent. */
export function checkAnswer(
  req: FuzzRequest,
  res: FuzzResponse,
  target: Pick<RestTarget, 'allowed5xx'>,
): void {
  const what = describeCase(req, res);
  const allowed = target.allowed5xx?.[req.op];
  if (res.status >= 500 && allowed && res.status === allowed.status) {
    expect(JSON.parse(res.text).detail, what).toBe(allowed.detail);
    return;
  }
  expect(res.status, what).toBeLessThan(500);
  if (res.status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      throw new Error(`4xx without a JSON body: ${what}`);
    }
    expect(typeof (body as { detail?: unknown })?.detail, what).toBe('string');
    expect(((body as { detail: string }).detail ?? '').length, what).toBeGreaterThan(0);
  }
}

/** Runs numRuns generated requests across ops; returns status counts per operation. */
export async function fuzzRest(
  ops: Operation[],
  resolve: Resolver,
  target: RestTarget,
  numRuns: number,
  weight: Weight = EVEN,
): Promise<Tally> {
  const tally: Tally = new Map(ops.map((op) => [op.key, new Map()]));
  let last = await target.snapshot();
  await fc.assert(
    fc.asyncProperty(anyRequest(ops, resolve, weight), async (req) => {
      const res = await target.send(req);
      const counts = tally.get(req.op) as Map<number, number>;
      counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
      checkAnswer(req, res, target);
      if (res.status >= 400) {
        const now = await target.snapshot();
        expect(now, `state changed by a rejected request: ${describeCase(req, res)}`).toEqual(last);
      } else {
        await target.afterAccept?.(req, res);
        last = await target.snapshot();
      }
    }),
    fcParams(numRuns),
  );
  return tally;
}

/** Fails unless every operation was exercised; prints one compact line per operation. */
export function reportTally(service: string, tally: Tally): void {
  const lines: string[] = [];
  for (const [op, counts] of tally) {
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    expect(total, `${op} was never exercised`).toBeGreaterThan(0);
    lines.push(
      `  ${op}: ${[...counts]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}x${n}`)
        .join(' ')}`,
    );
  }
  console.log(`${service} REST fuzz, status counts per operation:\n${lines.join('\n')}`);
}

export const BODY_LIMIT = 64 * 1024;

/**
 * Body-size and nesting limits: each case is [label, body, expected status class]. 'reject' is a 4xx
 * (never a 5xx); 413 is exactly 413.
 */
export function limitBodies(limit = BODY_LIMIT): Array<[string, string, 413 | 'reject']> {
  const under = limit - 64;
  const pairs = Math.floor(under / 2);
  return [
    ['one byte over the limit', `{"a":"${'x'.repeat(limit - 7)}"}`, 413],
    ['1 MiB', `{"a":"${'x'.repeat(1024 * 1024)}"}`, 413],
    ['100k levels of [ (over the limit)', '['.repeat(100_000), 413],
    ['unclosed [ nesting within the limit', '['.repeat(under), 'reject'],
    ['closed [] nesting within the limit', '['.repeat(pairs) + ']'.repeat(pairs), 'reject'],
    [
      'closed {"a": nesting within the limit',
      '{"a":'.repeat(Math.floor(under / 6)) + '1' + '}'.repeat(Math.floor(under / 6)),
      'reject',
    ],
    [
      'huge array within the limit',
      `[${Array(Math.floor(under / 2))
        .fill(0)
        .join(',')}]`,
      'reject',
    ],
    [
      'huge object within the limit',
      `{${Array.from({ length: Math.floor(under / 12) }, (_, i) => `"k${i}":0`).join(',')}}`,
      'reject',
    ],
    ['huge string within the limit', JSON.stringify('y'.repeat(under)), 'reject'],
  ];
}

/**
 * A schema-valid body whose fields each carry a deeply nested value in turn, within the body limit:
 * where a field is free-form JSON it travels on (stored, serialised, forwarded) and must not blow the
 * stack. Any status below 500 passes.
 */
export function deepFieldBodies(op: Operation, resolve: Resolver, limit = BODY_LIMIT): string[] {
  if (!op.body) return [];
  const s = resolve(op.body);
  const props = Object.keys(s.properties ?? {});
  const sample = fc.sample(validValue(s, resolve), { numRuns: 1, seed: 1 })[0];
  const depth = Math.floor((limit - 2048) / 2);
  const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const base = typeof sample === 'object' && sample !== null ? (sample as Record<string, unknown>) : {};
  return (props.length ? props : ['extra']).map((key) => {
    const json = JSON.stringify({ ...base, [key]: '__DEEP__' });
    return json.replace('"__DEEP__"', deep);
  });
}

/** A concrete path for an operation: every path parameter is `1`. */
export const concretePath = (op: Operation) => op.path.replace(/\{[^}]+\}/g, '1');

/**
 * Sends the limit bodies to every operation that takes a body (413 cases to every non-GET operation:
 * the limit holds before a route reads anything). Returns how many requests were checked.
 */
export async function checkLimits(
  ops: Operation[],
  resolve: Resolver,
  target: RestTarget,
  limit = BODY_LIMIT,
): Promise<number> {
  let checked = 0;
  let last = await target.snapshot();
  for (const op of ops.filter((o) => o.method !== 'GET')) {
    const cases: Array<[string, string, 413 | 'reject' | 'below500']> = [
      ...limitBodies(limit),
      ...deepFieldBodies(op, resolve, limit).map(
        (b, i) => [`deep value in field ${i}`, b, 'below500'] as [string, string, 'below500'],
      ),
    ];
    // Oversized bodies go once with their length declared and once streamed without it.
    const variants: Array<[string, string, 413 | 'reject' | 'below500', boolean]> = [];
    for (const [label, body, want] of cases) {
      variants.push([label, body, want, true]);
      if (want === 413) variants.push([`${label}, streamed`, body, want, false]);
    }
    for (const [label, body, want, declared] of variants) {
      if (want !== 413 && !op.body) continue;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (declared) headers['content-length'] = String(Buffer.byteLength(body));
      const req: FuzzRequest = {
        op: op.key,
        method: op.method,
        path: concretePath(op),
        headers,
        body,
        kind: label,
      };
      let res: FuzzResponse;
      try {
        res = await target.send(req);
      } catch (err) {
        throw new Error(`${op.key} with ${label}: no answer (${(err as Error).message})`, { cause: err });
      }
      checked++;
      const what = describeCase(req, res);
      if (want === 413) {
        expect(res.status, what).toBe(413);
        expect(typeof JSON.parse(res.text).detail, what).toBe('string');
      } else {
        checkAnswer(req, res, target);
        if (want === 'reject') expect(res.status, what).toBeGreaterThanOrEqual(400);
      }
      if (res.status >= 400) {
        expect(await target.snapshot(), `state changed by a rejected request: ${what}`).toEqual(last);
      } else {
        await target.afterAccept?.(req, res);
        last = await target.snapshot();
      }
    }
  }
  return checked;
}

/**
 * One request on a connection of its own (node:http, no agent), for the limit cases: a server that
 * answers 413 before reading the body drops the connection, which must not fail the next case.
 */
export function sendOnFreshConnection(baseUrl: string, req: FuzzRequest): Promise<FuzzResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    // Node frames DELETE bodies only when asked to: without a declared length, stream it chunked.
    const streamed = req.body !== undefined && !req.headers['content-length'];
    const headers = streamed ? { ...req.headers, 'transfer-encoding': 'chunked' } : req.headers;
    const r = httpRequest(`${baseUrl}${req.path}`, { method: req.method, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    // The server may answer and close while the body is still going out: the answer is what counts.
    r.on('error', (err) => {
      if (!answered) reject(err);
    });
    // Without a declared length the body goes out chunked, as a streaming client sends it.
    if (streamed) {
      r.write(req.body);
      r.end();
    } else r.end(req.body);
  });
}
