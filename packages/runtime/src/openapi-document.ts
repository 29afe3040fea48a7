/**
 * The finishing pass over a service's generated OpenAPI document, so that what it says is what the
 * gateway answers and mainstream tools (Redocly's recommended rules, client generators) take it as it
 * is. Routes describe their own behaviour; this adds what the shared gateway does for every route.
 */

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked as plain JSON
type Json = any;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every refusal: a message a client can show.',
  properties: { detail: { type: 'string' } },
  required: ['detail'],
};
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ERROR_REF } },
});

const UNKNOWN_PATHS =
  'An unknown path answers 404, and a method a path does not have 405 with `Allow`; both with the `Error` body, whose `detail` names the method and path sent (`Not found: GET /api/...`).';

/** `getApiGeneratorState` from GET /api/generator/state; `{id}` becomes `ById`. */
export function operationIdFor(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith('{') ? `by-${seg.slice(1, -1)}` : seg))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]?.toUpperCase() + w.slice(1))].join('');
}

/** `{ type: string, nullable, enum: [null] }`: the OpenAPI 3.0 way to say "null" on its own. */
const NULL_ONLY = { type: 'string', nullable: true, enum: [null] };

function typeOfEnum(values: unknown[]): string | undefined {
  const kinds = new Set(values.filter((v) => v !== null).map((v) => typeof v));
  if (kinds.size !== 1) return undefined;
  const [kind] = [...kinds];
  return kind === 'string' || kind === 'number' || kind === 'boolean' ? kind : undefined;
}

/**
 * OpenAPI 3.0 gives `nullable` a meaning only beside a `type`; zod's nullable unions, references and
 * unknowns come out without one. Rewritten in place to the same set of values, each with a type.
 */
function fixNullable(node: Json): void {
  if (Array.isArray(node)) {
    for (const v of node) fixNullable(v);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const v of Object.values(node)) fixNullable(v);
  if (node.nullable !== true || node.type !== undefined) return;
  delete node.nullable;
  if (Array.isArray(node.enum)) {
    const type = typeOfEnum(node.enum);
    if (type) {
      node.type = type;
      node.nullable = true;
      return;
    }
  }
  const keys = Object.keys(node).filter((k) => !['description', 'title', 'example', 'default'].includes(k));
  // Any value: null is one of them already.
  if (keys.length === 0) return;
  if (Array.isArray(node.anyOf) && keys.length === 1) {
    node.anyOf.push(NULL_ONLY);
    return;
  }
  const inner: Json = {};
  for (const k of keys) {
    inner[k] = node[k];
    delete node[k];
  }
  node.anyOf = [inner, NULL_ONLY];
}

function firstSentence(text: string): string {
  const line = text.split(/\n/)[0]?.trim() ?? '';
  const sentence = /^(.+?[.:;])(\s|$)/.exec(line)?.[1] ?? line;
  return sentence.replace(/[.:;]$/, '').slice(0, 100);
}

/**
 * The credential a service's gateway asks for on every operation (it guards them all in one place),
 * declared once at the root of the document; `open` operations carry an empty requirement instead.
 */
export interface DocumentSecurity {
  schemes: Record<string, Record<string, unknown>>;
  /** Alternatives, as OpenAPI writes them; `{}` among them makes the credential optional. */
  required: Array<Record<string, string[]>>;
  /** Paths that need no credential (a login). */
  open?: string[];
}

/**
 * Completes the document in place and returns it:
 * - a `servers` entry (the host that served the document);
 * - an `operationId` for every operation, and a `summary` where a route gave only a description;
 * - the answers the shared gateway gives for any route: 400 (malformed JSON) and 413 (body too large)
 *   where there is a body, 422 where there is a parameter or a body to validate;
 * - `nullable` always beside a `type`;
 * - in `info.description`, what an unknown path or method answers, and the `Error` schema it uses.
 */
export function completeDocument(doc: Json, security?: DocumentSecurity): Json {
  doc.servers ??= [{ url: '/', description: 'The host that serves this document' }];
  if (security) {
    doc.components ??= {};
    doc.components.securitySchemes = { ...doc.components.securitySchemes, ...security.schemes };
    doc.security ??= security.required;
    for (const path of security.open ?? []) {
      for (const method of METHODS) if (doc.paths?.[path]?.[method]) doc.paths[path][method].security = [];
    }
  }
  // What the shared gateway answers off the documented routes (app.ts, notFound), with the same body.
  doc.info ??= {};
  if (!String(doc.info.description ?? '').includes(UNKNOWN_PATHS))
    doc.info.description = [doc.info.description, UNKNOWN_PATHS].filter(Boolean).join('\n\n');
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op.operationId ??= operationIdFor(method, path);
      if (!op.summary)
        op.summary = op.description ? firstSentence(op.description) : `${method.toUpperCase()} ${path}`;
      op.responses ??= {};
      const hasBody = op.requestBody !== undefined;
      const hasParams = (op.parameters ?? []).length > 0 || (item.parameters ?? []).length > 0;
      const add = (status: string, description: string) => {
        if (op.responses[status]) return;
        op.responses[status] = errorResponse(description);
      };
      if (hasBody) {
        add('400', 'Malformed JSON in the request body');
        add('413', 'Request body larger than the limit');
      }
      if (hasBody || hasParams) add('422', 'Invalid input; detail names each field');
    }
  }
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas.Error ??= ERROR_SCHEMA;
  fixNullable(doc.paths);
  fixNullable(doc.components);
  return doc;
}
