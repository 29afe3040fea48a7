/**
 * decodePayload is the one gate between the bus and every service's handlers. 10,000 cases per
 * property by default (FUZZ_RUNS overrides, FUZZ_SEED replays), spread over every topic of TOPICS.
 * Runs in a few seconds each.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decodePayload, encodePayload, TOPICS, type TopicKey } from '../../src/topics.js';
import {
  fcParams,
  type JsonSchema,
  jsonValue,
  parserRuns,
  resolverFor,
  text,
  validValue,
  wrongValue,
} from '../../src/testing/arbitraries.js';

const KEYS = Object.keys(TOPICS) as TopicKey[];
const schemaOf = (key: TopicKey) =>
  z.toJSONSchema(TOPICS[key].schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
const SCHEMAS = new Map(KEYS.map((k) => [k, schemaOf(k)]));
const resolve = resolverFor({});

const anyKey = fc.constantFrom(...KEYS);
/** The payload as a publisher puts it on the wire: raw topics carry the plain string. */
const wire = (key: TopicKey, value: unknown) =>
  (TOPICS[key].raw || (key === 'haDiscovery' && value === '')) && typeof value === 'string'
    ? value
    : JSON.stringify(value);

describe('decodePayload (fuzz)', () => {
  it('never throws on arbitrary bytes, text or JSON, and explains every refusal', { timeout: 60_000 }, () => {
    const payload = fc.oneof(
      fc.uint8Array({ maxLength: 512 }),
      text(200),
      jsonValue(4).map((v) => JSON.stringify(v)),
      fc.constantFrom('', 'null', '{}', '[]', '"online"', 'online\n', '\uFEFF{}', '{"__proto__":{"x":1}}'),
    );
    fc.assert(
      fc.property(anyKey, payload, (key, p) => {
        let r: ReturnType<typeof decodePayload>;
        expect(() => {
          r = decodePayload(key, p);
        }).not.toThrow();
        r = decodePayload(key, p);
        if (r.ok) {
          // Whatever got through is a value the contract accepts and can put back on the wire.
          expect(TOPICS[key].schema.safeParse(r.value).success).toBe(true);
          expect(() => encodePayload(key, r.ok ? (r.value as never) : (undefined as never))).not.toThrow();
        } else {
          expect(r.error.length).toBeGreaterThan(0);
        }
      }),
      fcParams(parserRuns()),
    );
  });

  it('round-trips every valid payload of every topic', { timeout: 60_000 }, () => {
    const valid = anyKey.chain((key) =>
      validValue(SCHEMAS.get(key) as JsonSchema, resolve).map((value) => ({ key, value })),
    );
    fc.assert(
      fc.property(valid, ({ key, value }) => {
        const sent = wire(key, value);
        const r = decodePayload(key, sent);
        expect(r, `${key}: ${sent.slice(0, 300)}`).toMatchObject({ ok: true });
        if (!r.ok) return;
        // What arrives is what the contract makes of the bytes sent (defaults filled in, -0 as 0).
        expect(r.value).toEqual(TOPICS[key].schema.parse(TOPICS[key].raw ? sent : JSON.parse(sent || '""')));
        const again = decodePayload(key, encodePayload(key, r.value as never));
        expect(again).toEqual(r);
      }),
      fcParams(parserRuns()),
    );
  });

  it('refuses payloads with one field wrong and names the field', { timeout: 60_000 }, () => {
    const wrong = anyKey.chain((key) =>
      wrongValue(SCHEMAS.get(key) as JsonSchema, resolve).map((value) => ({ key, value })),
    );
    let refused = 0;
    fc.assert(
      fc.property(wrong, ({ key, value }) => {
        if (value === undefined || TOPICS[key].schema.safeParse(value).success) return;
        const r = decodePayload(key, wire(key, value));
        expect(r.ok, `${key}: ${wire(key, value).slice(0, 300)}`).toBe(false);
        if (r.ok) return;
        refused++;
        // formatIssues: "field.path: message; ..." or "(body): message", or the JSON refusal.
        expect(r.error).toMatch(/^(payload is not valid JSON|[^:;]+: .+)$/s);
      }),
      fcParams(parserRuns()),
    );
    // Most mutations really are invalid: the property did not pass by skipping everything.
    expect(refused).toBeGreaterThan(parserRuns() / 2);
  });
});
