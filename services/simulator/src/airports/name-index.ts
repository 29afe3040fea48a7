/**
 * Substring index over airport names: posting lists of every 1-, 2- and 3-character gram of the
 * folded names, stored flat (CSR layout in typed arrays) so building it needs no per-gram objects.
 * A query walks the shortest posting list among its grams and confirms each candidate with a plain
 * `includes`, in airport order, stopping at the limit. A miss costs one short list, not a scan of
 * all ~20k names.
 */

/** Case- and accent-insensitive form used for name matching ("Aeródromo" ~ "aerodromo"). */
export function foldText(s: string): string {
  const lower = s.toLowerCase();
  for (let i = 0; i < lower.length; i++) {
    if (lower.charCodeAt(i) > 0x7f) return lower.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  }
  return lower;
}

// Characters get small ids in order of first appearance; the rare ones beyond the alphabet share
// the last id, which only makes their lists supersets (the `includes` check keeps results exact).
const ALPHABET = 80;
const OTHER = ALPHABET - 1;
const UNKNOWN = -1;
const BIGRAM_BASE = ALPHABET;
const TRIGRAM_BASE = ALPHABET + ALPHABET * ALPHABET;
const KEY_SPACE = TRIGRAM_BASE + ALPHABET * ALPHABET * ALPHABET;

export class NameIndex {
  private readonly folded: string[];
  private readonly charId = new Map<number, number>();
  private readonly offsets = new Int32Array(KEY_SPACE + 1);
  private readonly postings: Int32Array;

  constructor(names: readonly string[]) {
    this.folded = names.map(foldText);
    const encoded = this.folded.map((n) => this.encode(n, true));
    const last = new Int32Array(KEY_SPACE).fill(-1);
    const counts = this.offsets; // counts first, turned into start offsets below
    this.forEachKey(encoded, last, (key) => {
      counts[key + 1]!++;
    });
    for (let k = 1; k <= KEY_SPACE; k++) counts[k]! += counts[k - 1]!;
    this.postings = new Int32Array(counts[KEY_SPACE]!);
    const cursor = counts.slice(0, KEY_SPACE);
    last.fill(-1);
    this.forEachKey(encoded, last, (key, id) => {
      this.postings[cursor[key]!++] = id;
    });
  }

  private encode(text: string, assign: boolean): Int32Array {
    const ids = new Int32Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let id = this.charId.get(c);
      if (id === undefined) {
        if (!assign) {
          id = UNKNOWN;
        } else {
          id = Math.min(this.charId.size, OTHER);
          this.charId.set(c, id);
        }
      }
      ids[i] = id;
    }
    return ids;
  }

  /** Calls fn once per distinct gram key per name, in ascending name id order. */
  private forEachKey(encoded: Int32Array[], last: Int32Array, fn: (key: number, id: number) => void): void {
    for (let id = 0; id < encoded.length; id++) {
      const e = encoded[id]!;
      for (let i = 0; i < e.length; i++) {
        const a = e[i]!;
        let key = a;
        if (last[key] !== id) {
          last[key] = id;
          fn(key, id);
        }
        if (i + 1 < e.length) {
          const ab = a * ALPHABET + e[i + 1]!;
          key = BIGRAM_BASE + ab;
          if (last[key] !== id) {
            last[key] = id;
            fn(key, id);
          }
          if (i + 2 < e.length) {
            key = TRIGRAM_BASE + ab * ALPHABET + e[i + 2]!;
            if (last[key] !== id) {
              last[key] = id;
              fn(key, id);
            }
          }
        }
      }
    }
  }

  /** Ids (ascending) of names containing `query` (folded here), skipping `exclude`, at most `limit`. */
  find(query: string, limit: number, exclude: ReadonlySet<number>): number[] {
    const needle = foldText(query);
    const out: number[] = [];
    if (needle === '' || limit <= 0) return out;
    const e = this.encode(needle, false);
    if (e.includes(UNKNOWN)) return out; // a character no name contains
    let bestStart = 0;
    let bestEnd = -1;
    const k = Math.min(3, e.length);
    for (let i = 0; i + k <= e.length; i++) {
      let key = e[i]!;
      if (k >= 2) key = BIGRAM_BASE + key * ALPHABET + e[i + 1]!;
      if (k === 3) key = TRIGRAM_BASE + (key - BIGRAM_BASE) * ALPHABET + e[i + 2]!;
      const start = this.offsets[key]!;
      const end = this.offsets[key + 1]!;
      if (bestEnd < 0 || end - start < bestEnd - bestStart) {
        bestStart = start;
        bestEnd = end;
      }
      if (end === start) return out;
    }
    for (let j = bestStart; j < bestEnd && out.length < limit; j++) {
      const id = this.postings[j]!;
      if (!exclude.has(id) && this.folded[id]!.includes(needle)) out.push(id);
    }
    return out;
  }
}
