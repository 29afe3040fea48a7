/**
 * The built-in airport database: static, in memory, parsed once at import from the generated
 * module. Search is indexed so a keystroke-driven picker stays well under a millisecond:
 * a sorted ICAO array answers prefix queries by binary search, and an n-gram index over the
 * folded names answers substring queries, stopping at `limit`.
 */
import { AIRPORTS_DATA } from './airports-data.js';
import { NameIndex } from './name-index.js';

export { foldText } from './name-index.js';

export interface Airport {
  readonly icao: string;
  readonly name: string;
  readonly lat: number;
  readonly lon: number;
  /** Feet MSL; 0 when unknown. */
  readonly elevation_ft: number;
  /** False for the airports whose source record has no elevation (mostly small fields). */
  readonly elevation_known: boolean;
}

export const DEFAULT_SEARCH_LIMIT = 10;

function load(): Airport[] {
  const out: Airport[] = [];
  for (const line of AIRPORTS_DATA.split('\n')) {
    const f = line.split('|');
    if (f.length !== 5) continue;
    out.push(
      Object.freeze({
        icao: f[0]!,
        name: f[1]!,
        lat: Number(f[2]),
        lon: Number(f[3]),
        elevation_ft: Math.round(Number(f[4])) || 0,
        elevation_known: f[4] !== '',
      }),
    );
  }
  out.sort((a, b) => (a.icao < b.icao ? -1 : a.icao > b.icao ? 1 : 0));
  return out;
}

interface Table {
  airports: readonly Airport[];
  icaos: readonly string[];
  byIcao: Map<string, Airport>;
}

// Parsed on first use, not at import: 20,000 airport objects and their index cost the simulator over
// 10 MB of resident memory that most runs, which never open the picker, would hold for nothing.
let parsed: Table | undefined;
function table(): Table {
  if (!parsed) {
    const airports = Object.freeze(load());
    parsed = {
      airports,
      icaos: airports.map((a) => a.icao),
      byIcao: new Map(airports.map((a) => [a.icao, a])),
    };
  }
  return parsed;
}

// Built on the first name search (about 100 ms) so importing the module stays cheap.
let nameIndex: NameIndex | undefined;
function names(): NameIndex {
  nameIndex ??= new NameIndex(table().airports.map((a) => a.name));
  return nameIndex;
}

/** Builds the search index now (e.g. at service start) instead of on the first query. */
export function warmUp(): void {
  names();
}

/** One line per airport in the generated table: counted without parsing it. */
function countLines(text: string): number {
  let lines = 0;
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf('\n', at);
    const stop = end === -1 ? text.length : end;
    if (stop > at) lines++;
    at = stop + 1;
  }
  return lines;
}

export const count: number = countLines(AIRPORTS_DATA);

/** Exact code, case-insensitive. */
export function lookup(icao: string): Airport | undefined {
  if (typeof icao !== 'string') return undefined;
  return table().byIcao.get(icao.trim().toUpperCase());
}

/** Every airport, sorted by ICAO. The array and its entries are frozen. */
export function list(): readonly Airport[] {
  return table().airports;
}

function lowerBound(arr: readonly string[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Airports whose ICAO starts with `q` (ranked first, in ICAO order), then airports whose name
 * contains `q` (in ICAO order), both case-insensitive; at most `limit`. Blank query: [].
 */
export function search(q: string, limit: number = DEFAULT_SEARCH_LIMIT): Airport[] {
  if (typeof q !== 'string') return [];
  const query = q.trim();
  const max = Number.isFinite(limit) ? Math.floor(limit) : DEFAULT_SEARCH_LIMIT;
  if (query === '' || max <= 0) return [];

  const { airports, icaos } = table();
  const out: Airport[] = [];
  const taken = new Set<number>();
  const upper = query.toUpperCase();
  for (let i = lowerBound(icaos, upper); i < icaos.length && out.length < max; i++) {
    if (!icaos[i]!.startsWith(upper)) break;
    out.push(airports[i]!);
    taken.add(i);
  }

  if (out.length < max) {
    for (const i of names().find(query, max - out.length, taken)) out.push(airports[i]!);
  }
  return out;
}
