/**
 * The conformance pass: requests built from a service's own OpenAPI document, each with one of the
 * inputs real clients were seen to send (a NUL character in a string, an id past the 32-bit range,
 * a method the path does not have), and every answer held to the document:
 *  - never a 5xx (unless the test names the operation and the exact detail);
 *  - a status the operation documents;
 *  - a content type the document gives for that status, and a body its schema accepts (ajv).
 * An unsupported method must get 405 with an Allow header naming the documented methods, and a JSON
 * body that does not parse an answer the document gives. Where the test says an operation states its
 * rules, a request the document allows is never refused with 400 or 422; and a path no template
 * matches answers 404 with the documented error body (conformance-routes.ts).
 */
import { request as httpRequest } from 'node:http';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { ORDERED_KEYWORD, type OrderedPair, unorderedPairs } from '../ordered.js';
import { FUZZ_SEED, type JsonSchema, type Resolver, validValue } from './arbitraries.js';
import { unknownRoutes } from './conformance-routes.js';
import { type Operation, operations } from './rest.js';

export interface ConformanceAnswer {
  status: number;
  contentType: string | null;
  allow: string | null;
  text: string;
}

export interface ConformanceRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Sends over HTTP (node:http: fetch will not send TRACE), with the service's credential on each request. */
export function httpTarget(baseUrl: string, credential: Record<string, string>) {
  const base = new URL(baseUrl);
  return (req: ConformanceRequest): Promise<ConformanceAnswer> =>
    new Promise((resolve, reject) => {
      const r = httpRequest(
        {
          host: base.hostname,
          port: base.port,
          method: req.method,
          path: req.path,
          headers: { ...credential, ...req.headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: res.headers['content-type'] ?? null,
              allow: (res.headers.allow as string | undefined) ?? null,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      r.on('error', reject);
      r.end(req.body);
    });
}

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any;

const DOCUMENTED = ['get', 'post', 'put', 'patch', 'delete'];
/** Methods tried on every path beside the documented ones. */
const PROBED = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'OPTIONS'];

/** OpenAPI 3.0 schema dialect to the JSON Schema ajv checks: boolean exclusive bounds become numbers. */
function toJsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = toJsonSchema(v);
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[flag] === 'boolean') {
      if (out[flag] && typeof out[bound] === 'number') {
        out[flag] = out[bound];
        delete out[bound];
      } else delete out[flag];
    }
  }
  return out;
}

/** A NUL in the middle of a string, or an id past 2^31 - 1, at one leaf of a valid value. */
type Mutation = 'nul' | 'big';
const BIG = [2 ** 31, 2 ** 53, 1e20];

function leaves(
  value: unknown,
  kind: Mutation,
  at: Array<string | number> = [],
): Array<Array<string | number>> {
  if (typeof value === 'string' && kind === 'nul') return [at];
  if (typeof value === 'number' && Number.isInteger(value) && kind === 'big') return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, kind, [...at, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => leaves(v, kind, [...at, k]));
  return [];
}

function mutate(value: unknown, kind: Mutation, pick: number): unknown {
  const spots = leaves(value, kind);
  if (spots.length === 0) return value;
  const spot = spots[pick % spots.length] as Array<string | number>;
  const copy = structuredClone(value);
  const put = (v: unknown) =>
    kind === 'nul' ? `${String(v).slice(0, 1)}\u0000${String(v).slice(1)}` : BIG[pick % BIG.length];
  if (spot.length === 0) return put(copy);
  let parent: Json = copy;
  for (const key of spot.slice(0, -1)) parent = parent[key];
  const last = spot[spot.length - 1] as string | number;
  parent[last] = put(parent[last]);
  return copy;
}

interface Built {
  op: Operation;
  req: ConformanceRequest;
  what: string;
}

/** The operation's path with its path and query parameters filled in from `vals` (in that order). */
function fillPath(op: Operation, vals: unknown[]): string {
  let path = op.path;
  const query: string[] = [];
  [...op.pathParams, ...op.queryParams].forEach((p, i) => {
    const v = vals[i];
    if (v === undefined) return;
    const s = encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v));
    if (i < op.pathParams.length) path = path.replace(`{${p.name}}`, s);
    else query.push(`${encodeURIComponent(p.name)}=${s}`);
  });
  return path + (query.length ? `?${query.join('&')}` : '');
}

function requestArb(op: Operation, resolve: Resolver): fc.Arbitrary<Built> {
  const params = [...op.pathParams, ...op.queryParams];
  const paramArb = fc.tuple(...params.map((p) => validValue(p.schema, resolve)));
  const bodyArb = op.body ? validValue(op.body, resolve) : fc.constant(undefined);
  return fc
    .tuple(paramArb, bodyArb, fc.constantFrom<Mutation>('nul', 'big'), fc.nat(), fc.boolean())
    .map(([values, body, kind, pick, inBody]) => {
      // One mutation: in the body, or in one parameter.
      const mutateBody = op.body !== null && (inBody || params.length === 0);
      const vals = values.map((v, i) =>
        !mutateBody && i === pick % Math.max(1, params.length) ? mutate(v, kind, pick) : v,
      );
      const path = fillPath(op, vals);
      const payload = mutateBody ? mutate(body, kind, pick) : body;
      const req: ConformanceRequest = {
        method: op.method,
        path,
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
        body: payload === undefined ? undefined : JSON.stringify(payload),
      };
      return { op, req, what: `${kind} in ${mutateBody ? 'body' : 'a parameter'}` };
    });
}

export interface ConformanceOptions {
  /** Generated requests (NUL and large ids) in all, spread evenly over the operations. */
  runs: number;
  /** Operation key to the one 5xx it may answer (hardware the test host lacks). */
  allowed5xx?: Record<string, { status: number; detail: string }>;
  /** Operations left out of the generated requests (ones that end the session or the service). */
  skip?: string[];
  /**
   * Operations (or 'all') whose requests the document allows must never be refused for their input
   * (400 or 422): every rule the server applies to them is one the document states, so a client
   * generated from it is not refused for a body its schema accepts. Sent in a row, so a rule checked
   * against what an earlier request stored is met too.
   */
  statesItsRules?: string[] | 'all';
  /**
   * Rules of such an operation that hang on what the service finds outside the request (a device on
   * a broker), so no schema can state them: each gives words of the operation's description that
   * state it (the pass fails without them) and the bodies it may refuse, which are then not sent as
   * ones the document allows.
   */
  outsideRules?: Record<string, Array<{ stated: string; applies: (body: unknown) => boolean }>>;
  /** Concrete paths no template matches, beside the one below each /api path (forwarded prefixes). */
  unknownPaths?: string[];
}

export interface ConformanceReport {
  cases: number;
  /** Each answer the document does not describe, with what was sent. */
  failures: string[];
}

const mediaType = (ct: string | null) => (ct ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/** Runs the pass against `send`; the caller asserts `failures` is empty. */
export async function conformancePass(
  doc: Json,
  send: (req: ConformanceRequest) => Promise<ConformanceAnswer>,
  opts: ConformanceOptions,
): Promise<ConformanceReport> {
  const { ops, resolve } = operations(doc);
  const ajv = documentAjv();
  const components = toJsonSchema(doc.components ?? {});
  const validators = new Map<string, ValidateFunction>();
  const failures: string[] = [];
  let cases = 0;

  const labelOf = (op: Operation, req: ConformanceRequest, res: ConformanceAnswer, what: string) =>
    `${op.key} (${what}): ${req.method} ${req.path} body=${JSON.stringify(req.body ?? '').slice(0, 200)} -> ${res.status} ${res.text.slice(0, 200)}`;
  const check = (op: Operation, req: ConformanceRequest, res: ConformanceAnswer, what: string) => {
    cases++;
    const label = labelOf(op, req, res, what);
    const allowed = opts.allowed5xx?.[op.key];
    if (res.status >= 500) {
      if (!(allowed && allowed.status === res.status && res.text.includes(allowed.detail)))
        failures.push(`5xx: ${label}`);
      return;
    }
    const responses = doc.paths[op.path][op.method.toLowerCase()].responses ?? {};
    const documented = responses[String(res.status)] ?? responses.default;
    if (!documented) {
      failures.push(`undocumented status ${res.status}: ${label}`);
      return;
    }
    const content = documented.content as Record<string, { schema?: JsonSchema }> | undefined;
    if (!content) return;
    const type = mediaType(res.contentType);
    const entry = content[type];
    if (!entry) {
      failures.push(`content type ${type || 'none'} not documented for ${res.status}: ${label}`);
      return;
    }
    if (!entry.schema || type !== 'application/json') return;
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      failures.push(`body is not JSON: ${label}`);
      return;
    }
    const key = `${op.key} ${res.status} ${type}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile({ components, allOf: [toJsonSchema(entry.schema)] });
      validators.set(key, validate);
    }
    if (!validate(body))
      failures.push(`body does not match the schema (${ajv.errorsText(validate.errors)}): ${label}`);
  };

  // Every path, every method it does not document: 405 naming the ones it does.
  const sample = <T>(arb: fc.Arbitrary<T>): T => fc.sample(arb, { numRuns: 1, seed: FUZZ_SEED })[0] as T;
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    const own = DOCUMENTED.filter((m) => item[m]).map((m) => m.toUpperCase());
    const first = ops.find((o) => o.path === path);
    if (!first) continue;
    let concrete = path;
    for (const p of first.pathParams) {
      const v = sample(validValue(p.schema, resolve));
      concrete = concrete.replace(`{${p.name}}`, encodeURIComponent(String(v)));
    }
    // A concrete path another template also matches (/api/webhooks/test and /api/webhooks/{id}) is
    // that template's too: the method it documents there is answered by its rules.
    const templates = Object.keys(doc.paths)
      .filter((p) => p !== path)
      .filter((p) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(concrete));
    const elsewhere = new Set(
      templates.flatMap((p) => DOCUMENTED.filter((m) => doc.paths[p][m]).map((m) => m.toUpperCase())),
    );
    for (const method of PROBED.filter((m) => !own.includes(m) && !elsewhere.has(m))) {
      const res = await send({ method, path: concrete, headers: {} });
      cases++;
      const label = `${method} ${concrete} -> ${res.status} allow=${res.allow} ${res.text.slice(0, 200)}`;
      if (res.status !== 405) failures.push(`unsupported method not 405: ${label}`);
      else if (!own.every((m) => (res.allow ?? '').split(/,\s*/).includes(m)))
        failures.push(`405 without the documented methods in Allow (${own.join(', ')}): ${label}`);
    }
  }

  const tried = ops.filter((o) => !(opts.skip ?? []).includes(o.key));
  // Every operation that takes a JSON body, sent one that does not parse (valid parameters): the
  // answer is one the document gives (400), with its content type and body, never a 5xx.
  for (const op of tried.filter((o) => o.body)) {
    const vals = sample(
      fc.tuple(...[...op.pathParams, ...op.queryParams].map((p) => validValue(p.schema, resolve))),
    );
    const req: ConformanceRequest = {
      method: op.method,
      path: fillPath(op, vals),
      headers: { 'content-type': 'application/json' },
      body: '{"broken',
    };
    check(op, req, await send(req), 'malformed JSON');
  }
  const perOp = Math.max(1, Math.ceil(opts.runs / Math.max(1, tried.length)));
  for (const op of tried) {
    const built = fc.sample(requestArb(op, resolve), { numRuns: perOp, seed: FUZZ_SEED });
    for (const b of built) check(b.op, b.req, await send(b.req), b.what);
  }
  // Requests the document allows, unchanged: never a 400 or 422 where the operation states its rules.
  const stated = new Set(
    opts.statesItsRules === 'all' ? tried.map((o) => o.key) : (opts.statesItsRules ?? []),
  );
  for (const op of tried.filter((o) => stated.has(o.key))) {
    const accepts = op.body ? documentedBodyCheck(doc, op.method, op.path) : () => true;
    const outside = opts.outsideRules?.[op.key] ?? [];
    const description = String(doc.paths[op.path][op.method.toLowerCase()].description ?? '');
    for (const rule of outside.filter((r) => !description.includes(r.stated)))
      failures.push(`${op.key}: its description does not state "${rule.stated}"`);
    const built = fc.sample(allowedRequestArb(op, resolve), { numRuns: perOp, seed: FUZZ_SEED });
    let sent = 0;
    for (const req of built) {
      // The generator knows most of JSON Schema, not all of it: what the document refuses is not sent.
      const body = req.body === undefined ? undefined : JSON.parse(req.body);
      if (body !== undefined && (!accepts(body) || outside.some((r) => r.applies(body)))) continue;
      sent++;
      const res = await send(req);
      check(op, req, res, 'allowed by the document');
      if (res.status === 400 || res.status === 422)
        failures.push(`refused a request the document allows: ${labelOf(op, req, res, 'allowed')}`);
    }
    // A pass that sent nothing would hold whatever the server refuses.
    if (sent === 0) failures.push(`${op.key}: none of ${built.length} generated requests met the document`);
  }
  const unknown = await unknownRoutes(doc, send, opts.unknownPaths);
  cases += unknown.cases;
  failures.push(...unknown.failures.map((f) => `unknown route: ${f}`));
  return { cases, failures };
}

/** A request the document allows: valid parameters and body, nothing changed. */
function allowedRequestArb(op: Operation, resolve: Resolver): fc.Arbitrary<ConformanceRequest> {
  const params = [...op.pathParams, ...op.queryParams];
  const paramArb = fc.tuple(...params.map((p) => validValue(p.schema, resolve)));
  const bodyArb = op.body ? validValue(op.body, resolve) : fc.constant(undefined);
  return fc.tuple(paramArb, bodyArb).map(
    ([vals, body]): ConformanceRequest => ({
      method: op.method,
      path: fillPath(op, vals),
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

/**
 * Whether a request body meets the operation's documented schema, as a client generated from the
 * document (or a validating proxy) would judge it: for tests that a rule the server enforces is in the
 * document too.
 */
export function documentedBodyCheck(doc: Json, method: string, path: string): (body: unknown) => boolean {
  const schema = doc.paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${method} ${path} documents no JSON body`);
  const ajv = documentAjv();
  const validate = ajv.compile({
    components: toJsonSchema(doc.components ?? {}),
    allOf: [toJsonSchema(schema)],
  });
  return (body) => validate(body) === true;
}

/** The validator documents are judged with: formats, and an order between fields (ordered.ts). */
function documentAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addKeyword({
    keyword: ORDERED_KEYWORD,
    type: 'object',
    schemaType: 'array',
    validate: (pairs: OrderedPair[], data: Record<string, unknown>) =>
      unorderedPairs(data, pairs).length === 0,
  });
  return ajv;
}
