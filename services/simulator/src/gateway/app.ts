import { fileURLToPath } from 'node:url';
import { createNodeWebSocket } from '@hono/node-ws';
import {
  type Clock,
  createApp,
  type Logger,
  type MapOptions,
  type MetricsAuth,
  mountWebConsole,
  type OutpostApp,
  RELEASE_VERSION,
} from '@outpost/runtime';
import type { Context } from 'hono';
import type { SimulatorService } from '../app/simulator-service.js';
import type { SerialDevice } from '../io/serial-devices.js';
import { LoginLimiter, SESSION_COOKIE, SessionStore, sessionToken } from './auth.js';
import { type AirportDeps, airportRoutes } from './routes-airports.js';
import { authRoutes } from './routes-auth.js';
import { controlRoutes } from './routes-control.js';
import { flightPlanRoutes } from './routes-flightplan.js';
import { bodyLimitFor, isReplayUpload, replayRoutes } from './routes-replay.js';
import { WsHub } from './ws-hub.js';

/** Where `vite build web` writes the console. */
const WEB_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export interface GatewayOptions {
  service: SimulatorService;
  logger: Logger;
  clock: Clock;
  auth: {
    username: string;
    password: string;
    bypassAuth: boolean;
    maxFailures: number;
    windowSeconds: number;
  };
  listDevices: () => Promise<SerialDevice[]>;
  airports: AirportDeps;
  health?: () => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** MAP_PMTILES / MAP_TILES_URL for the console's map. */
  map?: MapOptions;
  /** METRICS_TOKEN / METRICS_BASIC_AUTH (null: /metrics is open). */
  metricsAuth?: MetricsAuth | null;
}

export interface Gateway {
  app: OutpostApp;
  hub: WsHub;
  sessions: SessionStore;
  /** Attach the WebSocket upgrade handler to the HTTP server once it exists. */
  injectWebSocket: ReturnType<typeof createNodeWebSocket>['injectWebSocket'];
}

/** The simulator's HTTP and WebSocket surface. */
export function buildGateway(opts: GatewayOptions): Gateway {
  const { service, logger } = opts;
  const sessions = new SessionStore(opts.clock);
  const limiter = new LoginLimiter(opts.auth.maxFailures, opts.auth.windowSeconds);

  // A page on another site must not open the live stream with this browser's cookie.
  const crossOrigin = (c: Context): Response | undefined => {
    const origin = c.req.header('origin');
    if (!origin) return undefined;
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      host = null;
    }
    return host === c.req.header('host')
      ? undefined
      : c.json({ detail: 'Cross-origin WebSocket refused' }, 403);
  };
  // In the app's guard, before any route: every /api/* but login and the session status (the API
  // documents included) and the live stream need a session. The status answers without one, so the
  // console's first load can ask whether to show the login form without a failed request.
  const guard = (c: Context): Response | undefined => {
    const path = c.req.path;
    if (path === '/ws') {
      const refused = crossOrigin(c);
      if (refused) return refused;
    } else if (!path.startsWith('/api/') || path === '/api/auth/login' || path === '/api/auth/check') {
      return undefined;
    }
    if (opts.auth.bypassAuth) return undefined;
    const username = sessions.touch(sessionToken(c));
    if (!username) return c.json({ detail: 'Not authenticated' }, 401);
    c.set('username' as never, username as never);
    return undefined;
  };
  const app = createApp({
    service: 'simulator',
    version: RELEASE_VERSION,
    // The spec fixes the API description's version apart from the release: a breaking change bumps it.
    apiVersion: '1.0.0',
    logger,
    title: 'Outpost GPS position simulator',
    health: opts.health,
    // The spec's open /health promises only `status`; the rest is for a signed-in session.
    healthDetail: (c) => opts.auth.bypassAuth || sessions.touch(sessionToken(c)) !== null,
    metricsAuth: opts.metricsAuth ?? null,
    bodyLimit: bodyLimitFor,
    // The replay upload is read as it arrives (routes-replay.ts), never collected whole first.
    streamBody: isReplayUpload,
    guard,
    // The simulator's 422s list their messages one by one as well.
    unprocessable: (detail) => ({ detail, messages: [detail] }),
    // The session cookie the login sets; the guard above asks for it on all but these two.
    security: {
      schemes: { gps_session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE } },
      required: opts.auth.bypassAuth ? [{}] : [{ gps_session: [] }],
      open: ['/api/auth/login', '/api/auth/check'],
    },
  });
  const hub = new WsHub(logger.child({ component: 'ws' }));
  const { upgradeWebSocket, injectWebSocket } = createNodeWebSocket({ app });

  authRoutes(app, { sessions, limiter, ...opts.auth });
  controlRoutes(app, { service, listDevices: opts.listDevices });
  airportRoutes(app, opts.airports);
  flightPlanRoutes(app, service);
  replayRoutes(app, service);
  mountWebConsole(app, { dir: WEB_DIR, map: opts.map ?? {} });

  app.get(
    '/ws',
    upgradeWebSocket(() => {
      let client: ReturnType<WsHub['add']> | null = null;
      return {
        onOpen: (_evt, ws) => {
          client = hub.add(ws, service.status());
        },
        onMessage: (evt, _ws) => {
          if (client) hub.receive(client, evt.data);
        },
        onClose: () => {
          if (client) hub.remove(client);
        },
        onError: () => {
          if (client) hub.remove(client);
        },
      };
    }),
  );

  service.on('status', (partial) => hub.broadcast('status_update', partial));
  service.on('nmea', (sentences) => hub.broadcast('nmea_output', { sentences }));
  service.on('position', (p) => hub.broadcast('position_update', p));

  return { app, hub, sessions, injectWebSocket };
}
