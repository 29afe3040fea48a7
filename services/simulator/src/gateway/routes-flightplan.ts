import type { OpenAPIHono } from '@hono/zod-openapi';
import { simulator } from '@outpost/contracts';
import type { SimulatorService } from '../app/simulator-service.js';
import { input, jsonRoute } from './openapi.js';

export function flightPlanRoutes(app: OpenAPIHono, service: SimulatorService): void {
  const Status = simulator.FlightPlanStatus;

  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/flightplan',
      summary: 'The flight plan and progress: phase, leg, distance to go, ETA',
      tags: ['flight plan'],
      response: Status,
    },
    (c) => c.json(service.autopilot.flightView(), 200),
  );

  jsonRoute(
    app,
    {
      method: 'put',
      path: '/api/flightplan',
      summary:
        'Fly a route of airports (ICAO) or coordinates: the aircraft moves to the first point and, while a stand-alone or sender run is on, flies it. The first point may be a runway end of an airport ({icao, runway}): the flight starts lined up on its threshold and rolls down it on its true heading',
      tags: ['flight plan'],
      body: simulator.FlightPlanRequest,
      response: Status,
    },
    (c) => c.json(service.autopilot.fly(input(c, 'json')), 200),
  );

  jsonRoute(
    app,
    {
      method: 'delete',
      path: '/api/flightplan',
      summary: 'Drop the flight plan; the aircraft holds its altitude, speed and heading',
      tags: ['flight plan'],
      response: Status,
    },
    (c) => c.json(service.autopilot.clearFlight(), 200),
  );
}
