/**
 * The built-in runway table (OurAirports, public domain): static, parsed on first use from the
 * generated module, keyed by the airport table's code. Like the airports, it is not parsed at
 * import: most runs never line up on a runway or draw one.
 */
import type { simulator } from '@outpost/contracts';
import { RUNWAYS_DATA } from './runways-data.js';

export type Runway = simulator.Runway;
export type RunwayEnd = simulator.RunwayEnd;

const FIELDS = 14;
const optionalInt = (text: string): number | null => (text === '' ? null : Math.round(Number(text)));

function end(f: string[], at: number): RunwayEnd {
  return Object.freeze({
    ident: f[at]!,
    lat: Number(f[at + 1]),
    lon: Number(f[at + 2]),
    elevation_ft: optionalInt(f[at + 3]!),
    heading_deg: Number(f[at + 4]),
  });
}

let byIcao: Map<string, readonly Runway[]> | undefined;
function table(): Map<string, readonly Runway[]> {
  if (byIcao) return byIcao;
  const grouped = new Map<string, Runway[]>();
  for (const line of RUNWAYS_DATA.split('\n')) {
    const f = line.split('|');
    if (f.length !== FIELDS) continue;
    const runway: Runway = Object.freeze({
      icao: f[0]!,
      length_ft: optionalInt(f[1]!),
      width_ft: optionalInt(f[2]!),
      surface: f[3]!,
      le: end(f, 4),
      he: end(f, 9),
    });
    const list = grouped.get(runway.icao);
    if (list) list.push(runway);
    else grouped.set(runway.icao, [runway]);
  }
  for (const list of grouped.values()) Object.freeze(list);
  byIcao = grouped;
  return grouped;
}

/** How many runways the table holds. */
export function runwayCount(): number {
  let n = 0;
  for (const list of table().values()) n += list.length;
  return n;
}

/** The runways of an airport (case-insensitive code), longest first; [] for none or an unknown code. */
export function runwaysAt(icao: string): readonly Runway[] {
  if (typeof icao !== 'string') return [];
  return table().get(icao.trim().toUpperCase()) ?? [];
}

/** Folds the spellings a person may type for one end: case, spaces, and a leading zero ("1L" = "01L"). */
const foldIdent = (ident: string): string =>
  ident
    .trim()
    .toUpperCase()
    .replace(/\s+/g, '')
    .replace(/^0(?=\d)/, '');

/**
 * The end named `ident` of one of the airport's runways: that end's threshold and heading, and the
 * runway it belongs to. Where two runways share a name (a paved and a grass strip), the longer wins.
 */
export function findRunwayEnd(icao: string, ident: string): { runway: Runway; end: RunwayEnd } | undefined {
  const want = foldIdent(ident);
  for (const runway of runwaysAt(icao)) {
    if (foldIdent(runway.le.ident) === want) return { runway, end: runway.le };
    if (foldIdent(runway.he.ident) === want) return { runway, end: runway.he };
  }
  return undefined;
}

/** Every end of the airport's runways, in table order: what a picker offers. */
export function runwayEnds(icao: string): string[] {
  return runwaysAt(icao).flatMap((r) => [r.le.ident, r.he.ident]);
}

const NM_PER_DEGREE = 60;

/**
 * The runways of the airports in a box around a point (for the map at airport scale): any runway with
 * an end within `radiusNm`, at most `limit`, nearest airports' runways first.
 */
export function runwaysNear(lat: number, lon: number, radiusNm: number, limit: number): Runway[] {
  const cosLat = Math.max(Math.cos((lat * Math.PI) / 180), 1e-6);
  const found: Array<{ r: Runway; d: number }> = [];
  const distNm = (e: RunwayEnd) => {
    let dLon = Math.abs(e.lon - lon);
    if (dLon > 180) dLon = 360 - dLon;
    return Math.hypot(e.lat - lat, dLon * cosLat) * NM_PER_DEGREE;
  };
  for (const list of table().values()) {
    for (const r of list) {
      if (Math.abs(r.le.lat - lat) * NM_PER_DEGREE > radiusNm + 10) continue;
      const d = Math.min(distNm(r.le), distNm(r.he));
      if (d <= radiusNm) found.push({ r, d });
    }
  }
  found.sort((x, y) => x.d - y.d);
  return found.slice(0, limit).map((f) => f.r);
}
