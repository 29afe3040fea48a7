import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createRoute, z } from '@hono/zod-openapi';
import { ErrorBody, FleetState } from '@outpost/contracts';
import {
  createApp,
  type Logger,
  type MapOptions,
  type MetricsAuth,
  mountWebConsole,
  type OutpostApp,
  RELEASE_VERSION,
} from '@outpost/runtime';
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import { AUTH_CHALLENGE, basicAuthGuard, basicAuthOk, type Credentials } from './basic-auth.js';
import { type SitesAccess, sitesVisible } from './sites-access.js';

/** Where `vite build web` writes the console. */
const WEB_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export interface DashboardAppOptions {
  logger: Logger;
  /** The current fleet_state message as JSON text, with the sites and without them. */
  snapshot: () => { text: string; fleetOnlyText: string };
  auth: Credentials | null;
  /** Who sees the generator sites (sites-access.ts). */
  sites: SitesAccess;
  health?: () => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** MAP_PMTILES / MAP_TILES_URL for the console's map. */
  map?: MapOptions;
  /** METRICS_TOKEN / METRICS_BASIC_AUTH: /metrics then takes these instead of DASHBOARD_AUTH. */
  metricsAuth?: MetricsAuth | null;
}

/** The bus's AsyncAPI document, generated in the contracts package and shipped with it. */
let asyncApiText: string | undefined;
const asyncApi = (): string => {
  asyncApiText ??= readFileSync(
    createRequire(import.meta.url).resolve('@outpost/contracts/asyncapi.json'),
    'utf8',
  );
  return asyncApiText;
};

const READ_METHODS = new Set(['GET', 'HEAD']);
const Detail = z.object({ detail: z.string() });

/** Paths a load balancer or scraper reaches without the optional DASHBOARD_AUTH. */
const OPEN_PATHS = new Set(['/health']);

/** The peer address of the connection itself (undefined off Node: app.request() in tests). */
const remoteAddress = (c: Context): string | undefined =>
  (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress;

const SitesList = z.object({ generators: FleetState.shape.generators });

/** The dashboard's HTTP surface: a read-only view. No route changes any state. */
export function buildDashboardApp(opts: DashboardAppOptions): OutpostApp {
  const creds = opts.auth;
  const basic = creds ? basicAuthGuard(creds) : null;
  // In the app's guard, before any route (documents and metrics included): read-only first, then
  // the optional basic auth (Hono's middleware).
  const guard = async (c: Context): Promise<Response | undefined> => {
    if (!READ_METHODS.has(c.req.method)) {
      c.header('Allow', 'GET, HEAD');
      return c.json({ detail: `Method ${c.req.method} not allowed: the dashboard is read-only` }, 405);
    }
    if (!basic || OPEN_PATHS.has(c.req.path)) return undefined;
    const refused = await basic(c);
    if (refused && opts.metricsAuth && c.req.path === '/metrics') return undefined;
    return refused;
  };
  const app = createApp({
    service: 'dashboard',
    version: RELEASE_VERSION,
    logger: opts.logger,
    title: 'Outpost fleet dashboard',
    description:
      'Read-only view of every GPS simulator (and the generator sites) on the bus. ' +
      'WebSocket `/ws` sends a `fleet_state` message (the same object as GET /api/status) on connect and at 1 Hz. ' +
      'The generator sites (`generators`) are left out for a client beyond loopback without the sites login (GET /api/sites). ' +
      'Every method other than GET and HEAD is answered 405.',
    health: opts.health,
    // The only credential the dashboard has is DASHBOARD_AUTH; without it nobody gets the detail.
    healthDetail: (c) => creds !== null && basicAuthOk(c.req.header('authorization'), creds),
    metricsAuth: opts.metricsAuth ?? null,
    // DASHBOARD_AUTH is optional: the document says which this dashboard asks for.
    security: {
      schemes: { basic: { type: 'http', scheme: 'basic' } },
      required: creds ? [{ basic: [] }] : [{}],
    },
    bodyLimit: 1024,
    guard,
  });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/status',
      summary: 'One-shot snapshot of the data the WebSocket pushes',
      tags: ['fleet'],
      responses: {
        200: {
          description: 'The fleet_state message',
          content: { 'application/json': { schema: FleetState } },
        },
        401: {
          description: 'DASHBOARD_AUTH is set and the credentials are missing or wrong',
          content: { 'application/json': { schema: Detail } },
        },
      },
    }),
    ((c: Context) => {
      const snap = opts.snapshot();
      const visible = sitesVisible(opts.sites, remoteAddress(c), c.req.header('authorization'));
      return c.body(visible ? snap.text : snap.fleetOnlyText, 200, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
      });
    }) as never,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/sites',
      summary:
        'The generator sites alone; beyond loopback only with the sites login (or DASHBOARD_AUTH), unless DASHBOARD_PUBLIC_SITES',
      description:
        'GET /api/status and `/ws` carry `generators` only for a client that may see them; a page that finds none asks here.',
      tags: ['fleet'],
      responses: {
        200: {
          description: 'The generator sites',
          content: { 'application/json': { schema: SitesList } },
        },
        401: {
          description: 'Beyond loopback without the sites login (or DASHBOARD_AUTH)',
          content: { 'application/json': { schema: Detail } },
        },
      },
    }),
    ((c: Context) => {
      if (!sitesVisible(opts.sites, remoteAddress(c), c.req.header('authorization')))
        return c.json({ detail: 'The generator sites need the dashboard sites login' }, 401, {
          'WWW-Authenticate': AUTH_CHALLENGE,
        });
      const full = JSON.parse(opts.snapshot().text) as { generators: unknown[] };
      return c.json({ generators: full.generators }, 200, { 'cache-control': 'no-store' });
    }) as never,
  );

  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/ws',
    summary: 'WebSocket: fleet_state on connect and at 1 Hz',
    description:
      'Upgrade to a WebSocket. The server sends text messages `{"type":"fleet_state", "timestamp_ms", "simulators": [...], "generators": [...]}` ' +
      '(the GET /api/status object) on connect and every second; it reads nothing from the client. ' +
      'A client that falls more than about two messages behind is disconnected.',
    tags: ['fleet'],
    responses: {
      101: { description: 'Switching protocols' },
      401: { description: 'DASHBOARD_AUTH is set and the credentials are missing or wrong' },
      426: {
        description: 'A plain GET, without the WebSocket upgrade',
        content: { 'application/json': { schema: ErrorBody } },
      },
      403: {
        description: 'A browser page from another site (Origin not the dashboard nor in ALLOWED_ORIGINS)',
      },
      503: { description: 'Too many WebSocket clients (DASHBOARD_MAX_WS_CLIENTS)' },
    },
  });

  // The MQTT contract for integrators (Home Assistant, Node-RED), next to the REST one and behind the
  // same optional DASHBOARD_AUTH as /api/openapi.json.
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/asyncapi.json',
      summary: 'The AsyncAPI 3 document of the MQTT bus: every topic, its payload schema, QoS and retain',
      tags: ['docs'],
      responses: {
        200: {
          description: 'AsyncAPI 3 document (JSON)',
          content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
        },
        401: {
          description: 'DASHBOARD_AUTH is set and the credentials are missing or wrong',
          content: { 'application/json': { schema: Detail } },
        },
      },
    }),
    ((c: { body: (b: string, s: number, h: Record<string, string>) => Response }) =>
      c.body(asyncApi(), 200, { 'content-type': 'application/json' })) as never,
  );

  // The upgrade itself is taken by the server before any route (ws-fleet.ts); a plain GET lands here.
  app.get('/ws', (c) =>
    c.json({ detail: 'Upgrade to a WebSocket to receive fleet_state' }, 426, { Upgrade: 'websocket' }),
  );

  mountWebConsole(app, { dir: WEB_DIR, map: opts.map ?? {} });
  return app;
}
