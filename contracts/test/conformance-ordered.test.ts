import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDERED_KEYWORD, unorderedPairs } from '../src/ordered.js';
import { validValue } from '../src/testing/arbitraries.js';
import { type ConformanceOptions, conformancePass, httpTarget } from '../src/testing/conformance.js';

/**
 * Rules JSON Schema cannot state, and the conformance pass: a stop above its start (stated with
 * `x-outpost-ordered`, the quiet value falling back to the ordinary one), and a device looked up
 * outside the request (stated in the operation's description). The server below enforces both.
 */

const error = {
  description: 'refused',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};
const PAIRS = [
  { lower: ['start'], higher: ['stop'] },
  { lower: ['quiet_start', 'start'], higher: ['quiet_stop', 'stop'] },
];
const Threshold = { type: 'number', minimum: -100, maximum: 100 };

function doc(opts: { ordered: boolean; description: string; body?: object }) {
  return {
    openapi: '3.0.3',
    info: { title: 'limits', version: '1', description: 'An unknown path answers 404 with the Error body.' },
    components: {
      schemas: {
        Error: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
      },
    },
    paths: {
      '/api/limits': {
        put: {
          description: opts.description,
          requestBody: {
            content: {
              'application/json': {
                schema: opts.body ?? {
                  type: 'object',
                  properties: {
                    start: Threshold,
                    stop: Threshold,
                    quiet_start: { ...Threshold, nullable: true },
                    quiet_stop: { ...Threshold, nullable: true },
                    device: { type: 'string', pattern: '^[a-z]+$' },
                  },
                  required: ['start', 'stop'],
                  additionalProperties: false,
                  ...(opts.ordered ? { [ORDERED_KEYWORD]: PAIRS } : {}),
                },
              },
            },
          },
          responses: { 204: { description: 'stored' }, 400: error, 422: error },
        },
      },
    },
  };
}

const STATED = 'Without device, the one found on the bus is used (422 when none is).';

const server = createServer((req, res) => {
  let text = '';
  req.on('data', (d: Buffer) => {
    text += d.toString();
  });
  req.on('end', () => {
    const refuse = (detail: string) =>
      res
        .writeHead(req.url === '/api/limits' ? 422 : 404, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({
            detail: req.url === '/api/limits' ? detail : `Not found: ${req.method} ${req.url}`,
          }),
        );
    if (req.url !== '/api/limits') return refuse('');
    if (req.method !== 'PUT') return res.writeHead(405, { allow: 'PUT' }).end();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text);
    } catch {
      return res.writeHead(400, { 'content-type': 'application/json' }).end('{"detail":"Malformed JSON"}');
    }
    if (typeof body.start !== 'number' || typeof body.stop !== 'number') return refuse('start, stop');
    if (unorderedPairs(body, PAIRS).length > 0) return refuse('stop: must be above the start value');
    // No device on this bus: one left out cannot be found.
    if (body.device === undefined) return refuse('device: none found on the bus');
    res.writeHead(204).end();
  });
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const deviceRule = {
  stated: 'the one found on the bus',
  applies: (b: unknown) => !('device' in (b as object)),
};
const pass = async (d: object, opts: Partial<ConformanceOptions> = {}) =>
  (await conformancePass(d, httpTarget(url, {}), { runs: 200, statesItsRules: 'all', ...opts })).failures;

describe('rules beyond JSON Schema in the conformance pass', () => {
  it('an order between fields stated as x-outpost-ordered is met by the requests it sends', async () => {
    const outsideRules = { 'PUT /api/limits': [deviceRule] };
    expect(await pass(doc({ ordered: true, description: STATED }), { outsideRules })).toEqual([]);
    // Not stated: the server's hysteresis refuses requests the document allows.
    const unstated = await pass(doc({ ordered: false, description: STATED }), { outsideRules });
    expect(unstated[0]).toMatch(
      /^refused a request the document allows: .* -> 422 .*must be above the start/,
    );
  });

  it('a rule that hangs on what the server finds is left out only where the description states it', async () => {
    const ordered = (description: string, outsideRules?: ConformanceOptions['outsideRules']) =>
      pass(doc({ ordered: true, description }), outsideRules ? { outsideRules } : {});
    expect((await ordered(STATED))[0]).toMatch(
      /^refused a request the document allows: .*none found on the bus/,
    );
    expect(await ordered('Stores the limits.', { 'PUT /api/limits': [deviceRule] })).toContain(
      'PUT /api/limits: its description does not state "the one found on the bus"',
    );
  });

  it('says so when no request it generated met the document, instead of passing on none', async () => {
    const nothing = { type: 'object', properties: { start: Threshold }, not: {} };
    expect(await pass(doc({ ordered: false, description: STATED, body: nothing }))).toContain(
      'PUT /api/limits: none of 200 generated requests met the document',
    );
  });

  it('generates values in the stated order, the quiet ones falling back to the ordinary ones', () => {
    const schema = doc({ ordered: true, description: '' }).paths['/api/limits'].put.requestBody.content[
      'application/json'
    ].schema;
    const values = fc.sample(
      validValue(schema, (s) => s),
      { numRuns: 300, seed: 7 },
    );
    for (const v of values)
      expect(unorderedPairs(v as Record<string, unknown>, PAIRS), JSON.stringify(v)).toEqual([]);
    // The quiet pair counts with one side given and the other falling back.
    expect(unorderedPairs({ start: 20, stop: 80, quiet_start: 90 }, PAIRS)).toEqual([PAIRS[1]]);
    expect(unorderedPairs({ start: 20, stop: 80, quiet_stop: 10 }, PAIRS)).toEqual([PAIRS[1]]);
    // Neither quiet value given: the ordinary pair alone, not counted twice.
    expect(unorderedPairs({ start: 80, stop: 20, quiet_start: null }, PAIRS)).toEqual([PAIRS[0]]);
  });

  it('gives a pattern that names its schemes a loopback URL it accepts', () => {
    const broker = { type: 'string', pattern: '^(mqtts?|wss?):\\/\\/[^/\\s]+' };
    const urls = new Set(
      fc.sample(
        validValue(broker, (s) => s),
        { numRuns: 100, seed: 7 },
      ) as string[],
    );
    expect([...urls].sort()).toEqual([
      'mqtt://127.0.0.1:9/fuzz',
      'mqtts://127.0.0.1:9/fuzz',
      'ws://127.0.0.1:9/fuzz',
      'wss://127.0.0.1:9/fuzz',
    ]);
  });
});
