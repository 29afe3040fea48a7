import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformancePass, documentedBodyCheck, httpTarget } from '../src/testing/conformance.js';

/**
 * The conformance pass each service's OpenAPI test runs is only worth its green if it turns red on
 * the faults real clients found. Here it runs against a small HTTP server whose one documented
 * operation behaves, and then against the same server with one fault each: a 5xx for a NUL, an
 * undocumented status for malformed JSON, an id past 2^31 taken as valid with an answer outside the
 * schema, an unsupported method not answered 405, a 405 whose Allow leaves out a documented method, a
 * rule the schema does not state (a note the schema allows refused with 422), and an unknown route
 * answered with another method's words (a gateway that asked its backend with OPTIONS).
 */

const error = {
  description: 'refused',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};
const DOC = {
  openapi: '3.0.3',
  info: { title: 'items', version: '1', description: 'An unknown path answers 404 with the Error body.' },
  components: {
    schemas: {
      Error: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
    },
  },
  paths: {
    '/api/items/{id}': {
      put: {
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
          },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { note: { type: 'string', maxLength: 40 } },
                required: ['note'],
                additionalProperties: false,
              },
            },
          },
        },
        responses: {
          200: {
            description: 'stored',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { id: { type: 'integer', maximum: 2_147_483_647 } },
                  required: ['id'],
                },
              },
            },
          },
          400: error,
          422: error,
        },
      },
    },
  },
};

type Fault =
  | 'none'
  | 'nul-500'
  | 'malformed-415'
  | 'big-id-echoed'
  | 'trace-404'
  | 'allow-missing'
  | 'unstated-rule'
  | 'unknown-as-options';
let fault: Fault = 'none';

function handle(req: IncomingMessage, res: ServerResponse, body: string): ServerResponse {
  const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
  const m = /^\/api\/items\/([^/?]+)$/.exec(req.url ?? '');
  if (!m) {
    const method = fault === 'unknown-as-options' && req.method === 'TRACE' ? 'OPTIONS' : req.method;
    return json(404, { detail: `Not found: ${method} ${req.url}` });
  }
  if (req.method !== 'PUT') {
    if (fault === 'trace-404' && req.method === 'TRACE') return json(404, { detail: 'not found' });
    return json(405, { detail: 'not allowed' }, { allow: fault === 'allow-missing' ? 'GET' : 'PUT' });
  }
  let parsed: { note?: unknown };
  try {
    parsed = JSON.parse(body);
  } catch {
    if (fault === 'malformed-415') return res.writeHead(415, { 'content-type': 'text/plain' }).end('no');
    return json(400, { detail: 'Malformed JSON in request body' });
  }
  const id = Number(decodeURIComponent(m[1] as string));
  if (!Number.isInteger(id) || id < 1 || (id > 2_147_483_647 && fault !== 'big-id-echoed'))
    return json(422, { detail: 'id: out of range' });
  if (typeof parsed.note !== 'string' || parsed.note.length > 40) return json(422, { detail: 'note' });
  if (fault === 'unstated-rule' && parsed.note.length > 3) return json(422, { detail: 'note: too long' });
  if (parsed.note.includes('\u0000')) {
    if (fault === 'nul-500') return json(500, { detail: 'invalid byte sequence for encoding "UTF8": 0x00' });
    return json(422, { detail: 'Text must not contain the NUL character (U+0000)' });
  }
  return json(200, { id });
}

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => {
    body += d.toString();
  });
  req.on('end', () => handle(req, res, body));
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function failuresWith(f: Fault): Promise<string[]> {
  fault = f;
  const report = await conformancePass(DOC, httpTarget(url, {}), { runs: 60, statesItsRules: 'all' });
  expect(report.cases).toBeGreaterThan(60);
  return report.failures;
}

describe('the conformance pass', () => {
  it('finds nothing wrong with a server that answers as its document says', async () => {
    expect(await failuresWith('none')).toEqual([]);
  });

  it('turns red on each fault clients met', async () => {
    const first = async (f: Fault) => (await failuresWith(f))[0] ?? '';
    expect(await first('nul-500')).toMatch(/^5xx: PUT \/api\/items\/\{id\} \(nul in body\)/);
    expect(await first('malformed-415')).toMatch(/^undocumented status 415: .*\(malformed JSON\)/);
    expect(await first('big-id-echoed')).toMatch(/^body does not match the schema .*\(big in a parameter\)/);
    expect(await first('trace-404')).toMatch(/^unsupported method not 405: TRACE \/api\/items\/\d+ -> 404/);
    expect(await first('allow-missing')).toMatch(/^405 without the documented methods in Allow \(PUT\)/);
    expect(await first('unstated-rule')).toMatch(
      /^refused a request the document allows: PUT \/api\/items\/\{id\} \(allowed\).* -> 422 /,
    );
    expect(await first('unknown-as-options')).toMatch(
      /^unknown route: detail does not name what was sent: TRACE \/api\/items\/1\/no-such-route -> 404 /,
    );
  });

  it('documentedBodyCheck judges a body by the operation schema', () => {
    const accepts = documentedBodyCheck(DOC, 'PUT', '/api/items/{id}');
    expect(accepts({ note: 'oil changed' })).toBe(true);
    expect(accepts({})).toBe(false);
    expect(accepts({ note: 'x', extra: 1 })).toBe(false);
    expect(() => documentedBodyCheck(DOC, 'GET', '/api/items/{id}')).toThrow('documents no JSON body');
  });
});
