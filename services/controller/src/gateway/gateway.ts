import { fileURLToPath } from 'node:url';
import { createRoute, z } from '@hono/zod-openapi';
import { createApp, type MetricsAuth, mountWebConsole, type OutpostApp } from '@outpost/runtime';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { ControllerService } from '../controller-service.js';
import type { GatewayEnv } from './context.js';
import { errorResponses, router } from './context.js';
import { type Admission, admission, isPublic } from './admission.js';
import type { NotifierProxy } from './notifier-proxy.js';
import { parseRanges, type RateLimits, RateLimitGate } from './network.js';
import { authRoutes } from './routes-auth.js';
import type { RelaynodeAdmin } from '../bus/relaynode-admin.js';
import { declareBearer, declareRateLimit } from './openapi-security.js';
import { conditionsRoutes } from './routes-conditions.js';
import { devRoutes } from './routes-dev.js';
import { generatorRoutes } from './routes-generator.js';
import { stateJson } from './state-json.js';
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

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string }; headers?: Record<string, string | string[] | undefined> };
}

/** The controller's HTTP front: allowlist, rate limits and bearer auth in front of the documented routes. */
export function buildGateway(svc: ControllerService, opts: GatewayOptions): OutpostApp {
  const allowed = parseRanges(opts.allowedIps, 'ALLOWED_IPS');
  const trusted = parseRanges(opts.trustedProxies, 'TRUSTED_PROXIES');
  const limiter = new RateLimitGate(opts.rateLimits);

  type GuardContext = Context<GatewayEnv & { Bindings: NodeBindings }>;
  const deps = { auth: svc.auth, limiter, allowed, trusted };
  /** Decisions made by a fast read (see below) for requests it then left to the routes. */
  const decided = new WeakMap<object, Admission | Promise<Admission>>();

  /** The answer to a decision: a refusal, the notifier's answer, or undefined to go on to the route. */
  const answer = (c: GuardContext, path: string, a: Admission): Response | undefined | Promise<Response> => {
    switch (a.kind) {
      case 'admit':
        c.set('clientIp', a.ip);
        c.set('auth', a.auth);
        return undefined;
      case 'forbidden':
        opts.logger.warn({ ip: a.ip, path }, 'client refused by the allowlist');
        return c.json({ detail: 'Forbidden: client address not allowed' }, 403);
      case 'too_many':
        c.header('Retry-After', String(a.wait));
        return c.json({ detail: 'Too many requests' }, 429);
      case 'unauthorized':
        c.header('WWW-Authenticate', 'Bearer');
        return c.json({ detail: a.sent ? 'Invalid or expired token' : 'Not authenticated' }, 401);
      case 'notifier':
        if (!opts.notifier)
          return c.json({ detail: 'Notifications are not configured (NOTIFIER_URL is not set)' }, 503);
        return opts.notifier(c.req.raw, a.auth.username);
    }
  };

  // Allowlist, then the /api rate limit, then bearer token, then the credential limit, before any
  // route or body is touched (admission.ts). Synchronous for a known token.
  const guard = (c: GuardContext): Response | undefined | Promise<Response | undefined> => {
    const path = c.req.path;
    const incoming = c.env?.incoming;
    // Read from Node's own header object when there is one: asking Hono builds web Headers per request.
    const nodeHeaders = incoming?.headers;
    const a =
      (incoming && decided.get(incoming)) ??
      admission(deps, {
        path,
        method: c.req.method,
        peer: incoming?.socket?.remoteAddress,
        header: (name) => (nodeHeaders ? (nodeHeaders[name] as string | undefined) : c.req.header(name)),
      });
    return a instanceof Promise ? a.then((x) => answer(c, path, x)) : answer(c, path, a);
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
  // The console's poll, answered from Node's request ahead of Hono: the same checks (the decision is
  // kept for the routes when it is not a plain admit), the same body, headers, metrics and log.
  app.fastReads.add('/api/generator/state', (incoming) => {
    const a = admission(deps, {
      path: '/api/generator/state',
      method: 'GET',
      peer: incoming.socket.remoteAddress,
      header: (name) => incoming.headers[name] as string | undefined,
    });
    if (!(a instanceof Promise) && a.kind === 'admit') {
      try {
        return stateJson(svc.controller);
      } catch {
        // The route meets the same error and answers it as any other (500, logged).
      }
    }
    decided.set(incoming, a);
    return undefined;
  });
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
