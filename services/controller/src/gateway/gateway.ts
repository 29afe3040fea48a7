import { fileURLToPath } from 'node:url';
import { createRoute, z } from '@hono/zod-openapi';
import { createApp, type MetricsAuth, mountWebConsole, type OutpostApp } from '@outpost/runtime';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { ControllerService } from '../controller-service.js';
import type { GatewayEnv, GatewayVariables } from './context.js';
import { errorResponses, router } from './context.js';
import { isNotifierPath, type NotifierProxy } from './notifier-proxy.js';
import { clientAddress, inRanges, parseRanges, type RateLimits, RateLimitGate } from './network.js';
import { authRoutes } from './routes-auth.js';
import type { RelaynodeAdmin } from '../bus/relaynode-admin.js';
import { declareBearer, declareRateLimit } from './openapi-security.js';
import { conditionsRoutes } from './routes-conditions.js';
import { devRoutes } from './routes-dev.js';
import { generatorRoutes } from './routes-generator.js';
import { healthRoutes } from './routes-health.js';
import { maintenanceRoutes } from './routes-maintenance.js';
import { overrideRoutes } from './routes-override.js';
import { DEV_ENDPOINTS, relaynodeRoutes } from './routes-relaynode.js';
import { relaynodeSystemRoutes } from './routes-relaynode-system.js';
import { relaynodeKeyRoutes } from './routes-relaynode-key.js';
import type { NodeReportGate } from '../domain/node-report-gate.js';
import { scheduleRoutes } from './routes-schedules.js';
import { webhookRoutes } from './routes-webhooks.js';

/** Where `vite build web` writes the console. */
const WEB_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export interface GatewayOptions {
  logger: Logger;
  /** ALLOWED_IPS: IPs and CIDRs; empty allows every client. */
  allowedIps?: string;
  /** TRUSTED_PROXIES: peers whose X-Forwarded-For is believed. */
  trustedProxies?: string;
  rateLimits?: RateLimits;
  health?: () => Promise<Record<string, unknown>>;
  /** DEV_MODE=true with mock GPIO: mount /api/dev/*. */
  devMode?: boolean;
  /** METRICS_TOKEN / METRICS_BASIC_AUTH. */
  metricsAuth?: MetricsAuth | null;
  /** Relay node administration over MQTT (absent: the /api/relaynode/* routes answer 503). */
  relaynode?: RelaynodeAdmin;
  /** The pinned relay node key (absent without a relay node link). */
  nodeKey?: NodeReportGate;
  /** Forwards /api/notifications/* and /api/system-notifications/* to the notifier (NOTIFIER_URL). */
  notifier?: NotifierProxy;
}

/** Paths under /api that need no token. */
const PUBLIC_API = new Set(['/api/auth/login', '/api/openapi.json', '/api/docs', '/api/redoc']);
const isPublic = (path: string) =>
  PUBLIC_API.has(path) || path.startsWith('/api/docs/') || path.startsWith('/api/redoc/');

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string }; headers?: Record<string, string | string[] | undefined> };
}

/** The controller's HTTP front: allowlist, rate limits and bearer auth in front of the documented routes. */
export function buildGateway(svc: ControllerService, opts: GatewayOptions): OutpostApp {
  const allowed = parseRanges(opts.allowedIps, 'ALLOWED_IPS');
  const trusted = parseRanges(opts.trustedProxies, 'TRUSTED_PROXIES');
  const limiter = new RateLimitGate(opts.rateLimits);

  type GuardContext = Context<GatewayEnv & { Bindings: NodeBindings }>;
  const tooMany = (c: GuardContext, wait: number) => {
    c.header('Retry-After', String(wait));
    return c.json({ detail: 'Too many requests' }, 429);
  };

  // Allowlist, then the /api rate limit, then bearer token, then the credential limit, before any
  // route or body is touched. Synchronous unless a token is new to this process (jwtVerify) or the
  // request goes to the notifier: a read with a known token is let through without a promise.
  const guard = (c: GuardContext): Response | undefined | Promise<Response | undefined> => {
    const path = c.req.path;
    // Read from Node's own header object when there is one: asking Hono builds web Headers per request.
    const nodeHeaders = c.env?.incoming?.headers;
    const header = (name: string) =>
      nodeHeaders ? (nodeHeaders[name] as string | undefined) : c.req.header(name);
    const ip = clientAddress(c.env?.incoming?.socket?.remoteAddress, header('x-forwarded-for'), trusted);
    if (allowed.length > 0 && !inRanges(ip, allowed)) {
      opts.logger.warn({ ip, path }, 'client refused by the allowlist');
      return c.json({ detail: 'Forbidden: client address not allowed' }, 403);
    }
    const wait = limiter.checkApi(path, ip);
    if (wait > 0) return tooMany(c, wait);
    if (!path.startsWith('/api/') || isPublic(path)) return admit(c, path, ip, null);
    const match = /^Bearer\s+(\S+)$/i.exec(header('authorization') ?? '');
    if (!match) return authorized(c, path, ip, null, false);
    const token = match[1] as string;
    const known = svc.auth.verifyKnown(token);
    if (known !== undefined) return authorized(c, path, ip, known, true);
    return svc.auth.verify(token).then((auth) => authorized(c, path, ip, auth, true));
  };

  /** After the bearer check of a protected /api path: 401, the notifier, or on to admit. */
  const authorized = (
    c: GuardContext,
    path: string,
    ip: string,
    auth: GatewayVariables['auth'],
    sent: boolean,
  ): Response | undefined | Promise<Response> => {
    if (!auth) {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json({ detail: sent ? 'Invalid or expired token' : 'Not authenticated' }, 401);
    }
    if (isNotifierPath(path)) {
      if (!opts.notifier)
        return c.json({ detail: 'Notifications are not configured (NOTIFIER_URL is not set)' }, 503);
      return opts.notifier(c.req.raw, auth.username);
    }
    return admit(c, path, ip, auth);
  };

  /** The credential limit, then the request goes on to its route with its client and token. */
  const admit = (c: GuardContext, path: string, ip: string, auth: GatewayVariables['auth']) => {
    // Credential attempts are counted once the request is one (a POST, with its session if it needs one).
    const attempts = limiter.checkCredential(path, c.req.method, ip);
    if (attempts > 0) return tooMany(c, attempts);
    c.set('clientIp', ip);
    c.set('auth', auth);
    return undefined;
  };

  const app = createApp({
    service: 'controller',
    version: svc.config.version,
    logger: opts.logger,
    title: 'Outpost controller',
    description:
      'Generator control: state, start/stop, arming, overrides, runtime limits, schedules, webhooks.\n\n' +
      'The gateway checks each request in this order: the allowlist (403), the per-client /api limit (429), ' +
      'the bearer token (401), the route and method (404, 405), the limit on password attempts (429, a POST ' +
      'to /api/auth/login or /api/auth/password), then the body (400, 413, 422).',
    health: opts.health,
    // The console and operators send their bearer token; a stranger learns only that it is up.
    healthDetail: async (c) => {
      const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
      return match ? (await svc.auth.verify(match[1] as string)) !== null : false;
    },
    metricsAuth: opts.metricsAuth ?? null,
    guard: guard as unknown as (c: Context) => Response | undefined | Promise<Response | undefined>,
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });

  const mount = (r: ReturnType<typeof router>) => app.route('/', r as unknown as typeof app);
  mount(authRoutes(svc));
  mount(generatorRoutes(svc));
  mount(overrideRoutes(svc));
  mount(scheduleRoutes(svc));
  mount(webhookRoutes(svc));
  mount(healthRoutes(svc));
  mount(maintenanceRoutes(svc));
  const dev = opts.devMode === true && svc.mockGpio !== null;
  mount(conditionsRoutes(svc, { dev }));
  if (dev && svc.mockGpio) mount(devRoutes(svc, svc.mockGpio));
  if (opts.nodeKey) mount(relaynodeKeyRoutes(opts.nodeKey, opts.logger));
  if (opts.relaynode) mount(relaynodeRoutes(opts.relaynode, opts.logger));
  if (opts.relaynode) mount(relaynodeSystemRoutes(svc, opts.relaynode));
  if (opts.relaynode && dev) mount(relaynodeRoutes(opts.relaynode, opts.logger, DEV_ENDPOINTS));

  const audit = router();
  audit.openapi(
    createRoute({
      method: 'get',
      path: '/api/audit',
      tags: ['audit'],
      summary: 'Who changed what, from where (newest first)',
      request: { query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }) },
      responses: {
        200: {
          description: 'OK',
          content: { 'application/json': { schema: z.array(z.record(z.string(), z.unknown())) } },
        },
        ...errorResponses([401, 422]),
      },
    }),
    async (c) => c.json(await svc.audit.entries(c.req.valid('query').limit), 200),
  );
  mount(audit);
  declareBearer(app, 'bearer', (path) => path.startsWith('/api/') && !isPublic(path));
  declareRateLimit(app, (path) => path.startsWith('/api/'));
  // The console's built files (web/dist) at /, after the API so no file can shadow a route.
  mountWebConsole(app, { dir: WEB_DIR });
  return app;
}
