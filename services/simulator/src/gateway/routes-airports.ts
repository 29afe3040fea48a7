import type { OpenAPIHono } from '@hono/zod-openapi';
import { simulator } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import { z } from 'zod';
import { near } from '../airports/near.js';
import { input, jsonRoute } from './openapi.js';

type Airport = simulator.Airport;

export interface AirportDeps {
  lookup: (icao: string) => Airport | undefined;
  search: (q: string, limit: number) => Airport[];
  list: () => readonly Airport[];
  runwaysAt: (icao: string) => readonly simulator.Runway[];
  runwaysNear: (lat: number, lon: number, radiusNm: number, limit: number) => simulator.Runway[];
}

const tags = ['airports'];

export function airportRoutes(app: OpenAPIHono, deps: AirportDeps): void {
  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/airports/lookup/{icao}',
      summary: 'One airport by exact ICAO code (case-insensitive)',
      tags,
      params: z.object({ icao: z.string().min(1).max(8) }),
      response: simulator.AirportResponse,
      errors: { 404: 'Unknown airport code' },
    },
    (c) => {
      const { icao } = input<{ icao: string }>(c, 'param');
      const airport = deps.lookup(icao);
      if (!airport) throw new HttpError(404, `Airport ${icao.toUpperCase()} not found`);
      return c.json({ airport }, 200);
    },
  );

  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/airports/search',
      summary: 'ICAO prefix or name substring, case-insensitive',
      tags,
      query: simulator.AirportSearchQuery,
      response: simulator.AirportsResponse,
    },
    (c) => {
      const { q, limit } = input<{ q: string; limit: number }>(c, 'query');
      return c.json({ airports: deps.search(q, limit) }, 200);
    },
  );

  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/airports/list',
      summary: 'Every airport',
      tags,
      response: simulator.AirportsResponse,
    },
    (c) => c.json({ airports: deps.list() }, 200),
  );

  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/airports/near',
      summary: 'The airports within radius_nm of a point, nearest first',
      tags,
      query: simulator.AirportNearQuery,
      response: simulator.AirportsResponse,
    },
    (c) => {
      const q = input<{ lat: number; lon: number; radius_nm: number; limit: number }>(c, 'query');
      return c.json({ airports: near(deps.list(), q.lat, q.lon, q.radius_nm, q.limit) }, 200);
    },
  );

  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/airports/runways/{icao}',
      summary:
        "An airport's runways (OurAirports): both thresholds with their true headings, length, width, surface",
      tags,
      params: z.object({ icao: z.string().min(1).max(8) }),
      response: simulator.RunwaysResponse,
      errors: { 404: 'Unknown airport code' },
    },
    (c) => {
      const { icao } = input<{ icao: string }>(c, 'param');
      const airport = deps.lookup(icao);
      if (!airport) throw new HttpError(404, `Airport ${icao.toUpperCase()} not found`);
      return c.json({ runways: deps.runwaysAt(airport.icao) }, 200);
    },
  );

  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/runways/near',
      summary:
        'The runways with an end within radius_nm of a point, nearest first (the map at airport scale)',
      tags,
      query: simulator.RunwayNearQuery,
      response: simulator.RunwaysResponse,
    },
    (c) => {
      const q = input<{ lat: number; lon: number; radius_nm: number; limit: number }>(c, 'query');
      return c.json({ runways: deps.runwaysNear(q.lat, q.lon, q.radius_nm, q.limit) }, 200);
    },
  );
}
