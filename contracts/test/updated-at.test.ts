import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { UpdatedAt } from '../src/common.js';
import { TOPICS, type TopicKey } from '../src/topics.js';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
};

const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Every `updated_at` field reachable in a payload schema, with its path. */
function updatedAtFields(schema: z.ZodType, path: string, out: [string, z.ZodType][]): void {
  const def = defOf(schema);
  const inner = [def.innerType, def.element, def.in, def.out, def.valueType, ...(def.options ?? [])];
  for (const s of inner) if (s) updatedAtFields(s, path, out);
  if (def.type !== 'object' || !def.shape) return;
  for (const [key, field] of Object.entries(def.shape)) {
    if (key === 'updated_at') out.push([`${path}.${key}`, field]);
    updatedAtFields(field, `${path}.${key}`, out);
  }
}

const fields = (Object.keys(TOPICS) as TopicKey[]).flatMap((key) => {
  const out: [string, z.ZodType][] = [];
  updatedAtFields(TOPICS[key].schema, key, out);
  return out;
});

// 2026-09-21T12:00:00Z in the units a publisher might mix up.
const SECONDS = 1_790_000_000;
const MILLIS = SECONDS * 1000;

describe('updated_at on MQTT: one unit, Unix seconds', () => {
  it('is found in the generator and relay node states', () => {
    expect(fields.map(([path]) => path).sort()).toEqual(
      expect.arrayContaining(['controllerState.updated_at', 'relaynodeState.updated_at']),
    );
  });

  // The one field read from a peer that may be an earlier version (see UpdatedAtFromEarlierVersions).
  const FROM_EARLIER_VERSIONS = new Set(['relaynodeState.updated_at']);

  it.each(
    fields.filter(([path]) => !FROM_EARLIER_VERSIONS.has(path)).map(([path, schema]) => ({ path, schema })),
  )('$path takes whole seconds and refuses milliseconds and ISO text', ({ schema }) => {
    expect(schema.safeParse(SECONDS).success).toBe(true);
    expect(schema.safeParse(MILLIS).success).toBe(false);
    expect(schema.safeParse(SECONDS + 0.5).success).toBe(false);
    expect(schema.safeParse(new Date(MILLIS).toISOString()).success).toBe(false);
  });

  it.each([...FROM_EARLIER_VERSIONS])(
    "%s reads an earlier relay node's milliseconds as seconds, and seconds as they are",
    (path) => {
      const schema = fields.find(([p]) => p === path)![1];
      expect(schema.parse(SECONDS)).toBe(SECONDS);
      expect(schema.parse(MILLIS + 999)).toBe(SECONDS);
      expect(schema.safeParse(SECONDS + 0.5).success).toBe(false);
      expect(schema.safeParse(new Date(MILLIS).toISOString()).success).toBe(false);
    },
  );

  it('the shared UpdatedAt schema is that unit', () => {
    expect(UpdatedAt.safeParse(SECONDS).success).toBe(true);
    expect(UpdatedAt.safeParse(MILLIS).success).toBe(false);
  });
});
