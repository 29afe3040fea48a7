import type { simulator } from '@outpost/contracts';
import { Flight, type Waypoint } from '../domain/flight/flight.js';
import { isProblem, resolveLineUp } from './line-up.js';
import { ServiceError } from './service-error.js';

type Airport = simulator.Airport;

/**
 * Turns a validated PUT /api/flightplan body into a route: each ICAO code looked up in the airport
 * table, coordinates named by their position, a first point on a runway at that end's threshold. Every unknown airport is named in one 422, and a
 * cruise altitude below a field on the route is refused too.
 */
export function resolvePlan(
  req: simulator.FlightPlanRequest,
  lookupAirport: (icao: string) => Airport | undefined,
): Waypoint[] {
  const messages: string[] = [];
  const waypoints: Waypoint[] = [];
  req.points.forEach((p, i) => {
    if ('runway' in p) {
      const at = resolveLineUp(p.icao, p.runway, lookupAirport);
      if (isProblem(at)) {
        const why = at.status === 404 ? `airport ${p.icao.toUpperCase()} not found` : at.message;
        messages.push(`points.${i}: ${why}`);
        return;
      }
      const { icao, lat, lon, altitude_ft, runway, heading } = at;
      waypoints.push({ name: icao, icao, lat, lon, elevation_ft: altitude_ft, runway, heading });
    } else if ('icao' in p) {
      const a = lookupAirport(p.icao);
      if (!a) {
        messages.push(`points.${i}: airport ${p.icao.toUpperCase()} not found`);
        return;
      }
      waypoints.push({ name: a.icao, icao: a.icao, lat: a.lat, lon: a.lon, elevation_ft: a.elevation_ft });
    } else {
      const name = p.name?.trim() || `${p.lat.toFixed(4)},${p.lon.toFixed(4)}`;
      waypoints.push({ name, icao: null, lat: p.lat, lon: p.lon, elevation_ft: 0 });
    }
  });
  for (const w of waypoints) {
    if (w.elevation_ft >= req.cruise_altitude_ft) {
      messages.push(
        `cruise_altitude_ft: ${req.cruise_altitude_ft} ft is not above ${w.name} (${w.elevation_ft} ft)`,
      );
    }
  }
  if (messages.length > 0) throw new ServiceError(422, messages.join('; '), { messages });
  return waypoints;
}

/** The answer of GET, PUT and DELETE /api/flightplan. */
export function flightPlanView(flight: Flight | null, nowMs: number): simulator.FlightPlanStatus {
  if (!flight) return { active: false, plan: null, progress: null };
  const { eta_ms, ...progress } = flight.progress();
  return {
    active: !flight.arrived,
    // The runway heading is how the flight starts, not part of the documented point.
    plan: { waypoints: flight.waypoints.map(({ heading: _h, ...w }) => w), ...flight.profile },
    progress: { ...progress, eta: eta_ms === null ? null : new Date(nowMs + eta_ms).toISOString() },
  };
}

export function newFlight(
  req: simulator.FlightPlanRequest,
  lookupAirport: (icao: string) => Airport | undefined,
  nowMs: number,
): Flight {
  const waypoints = resolvePlan(req, lookupAirport);
  return new Flight(
    waypoints,
    {
      cruise_altitude_ft: req.cruise_altitude_ft,
      cruise_speed_kts: req.cruise_speed_kts,
      climb_rate_fpm: req.climb_rate_fpm,
      descent_rate_fpm: req.descent_rate_fpm,
      loop: req.loop,
    },
    nowMs,
  );
}
