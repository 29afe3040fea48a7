import type { simulator } from '@outpost/contracts';
import { findRunwayEnd, runwayEnds } from '../airports/runways.js';
import { ServiceError } from './service-error.js';

type Airport = simulator.Airport;

/** Where lining up on a runway puts the aircraft: on the named end's threshold, on the ground, on its heading. */
export interface LineUp {
  icao: string;
  /** The end as the table spells it ("01R" for "1r"). */
  runway: string;
  lat: number;
  lon: number;
  /** The threshold's elevation, or the field's where the source has none for the threshold. */
  altitude_ft: number;
  /** Degrees true. */
  heading: number;
}

export type LineUpProblem = { status: 404 | 422; message: string };

/**
 * Resolves an airport code and a runway end against the built-in tables. An unknown airport is a
 * 404 (as for POST /api/position); a runway the airport does not have is a 422 that names the ones it has.
 */
export function resolveLineUp(
  icao: string,
  runway: string,
  lookupAirport: (icao: string) => Airport | undefined,
): LineUp | LineUpProblem {
  const airport = lookupAirport(icao);
  if (!airport) return { status: 404, message: `Airport ${icao.trim().toUpperCase()} not found` };
  const found = findRunwayEnd(airport.icao, runway);
  if (!found) {
    const ends = runwayEnds(airport.icao);
    const has = ends.length > 0 ? `its runways are ${ends.join(', ')}` : 'the table has no runway for it';
    return { status: 422, message: `${airport.icao} has no runway ${runway.trim().toUpperCase()}; ${has}` };
  }
  const { end } = found;
  return {
    icao: airport.icao,
    runway: end.ident,
    lat: end.lat,
    lon: end.lon,
    altitude_ft: end.elevation_ft ?? airport.elevation_ft,
    heading: end.heading_deg,
  };
}

export const isProblem = (r: LineUp | LineUpProblem): r is LineUpProblem => 'status' in r;

/** The answer to a problem: a 422 lists its message like any validation failure, a 404 has only `detail`. */
export const problemError = (p: LineUpProblem): ServiceError =>
  new ServiceError(p.status, p.message, p.status === 422 ? { messages: [p.message] } : {});
