/**
 * An order between fields of one object that JSON Schema cannot state (it compares a value with
 * constants, never with another field): the start conditions' hysteresis, a stop value on the far
 * side of its start value. The schema says it with the OpenAPI extension `x-outpost-ordered`, a list
 * of pairs; the operation's description says it in words. Each side of a pair is the first of its
 * fields that is present and not null (a quiet-hours value falls back to the ordinary one), and the
 * `lower` value must be strictly below the `higher` one. A side with no value is not compared.
 */
export const ORDERED_KEYWORD = 'x-outpost-ordered';

export interface OrderedPair {
  lower: string[];
  higher: string[];
}

/** The first of `fields` that `obj` holds as a number, with its name. */
function firstSet(obj: Record<string, unknown>, fields: string[]): { field: string; value: number } | null {
  for (const field of fields) {
    const value = obj[field];
    if (typeof value === 'number') return { field, value };
    if (value !== undefined && value !== null) return null;
  }
  return null;
}

/**
 * The pairs `obj` breaks. A pair whose sides fall back to the same two fields as an earlier pair's is
 * that pair again (no quiet value given) and is not counted twice.
 */
export function unorderedPairs<P extends OrderedPair>(
  obj: Record<string, unknown>,
  pairs: readonly P[],
): P[] {
  const seen = new Set<string>();
  const broken: P[] = [];
  for (const pair of pairs) {
    const lower = firstSet(obj, pair.lower);
    const higher = firstSet(obj, pair.higher);
    if (!lower || !higher) continue;
    const key = `${lower.field} ${higher.field}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!(lower.value < higher.value)) broken.push(pair);
  }
  return broken;
}
