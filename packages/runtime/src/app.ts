import { OpenAPIHono } from '@hono/zod-openapi';
import { formatIssues } from '@outpost/contracts';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import type { ZodError } from 'zod';
import {
  DATABASE_UNAVAILABLE_DETAIL,
  invalidDataDetail,
  isDatabaseUnavailable,
  loggableError,
} from './db-errors.js';
import { mountDocs } from './docs.js';
import { allowedMethods } from './methods.js';
import { hasBody, isStreamed, markStreamed, readNodeBody, refusedBody } from './node-body.js';
import { refuseNul } from './nul.js';
import { completeDocument, type DocumentSecurity } from './openapi-document.js';
import { FastReads } from './fast-read.js';
import { createMetrics, type Metrics, metricsRecorder, routeRecorder } from './metrics.js';
import { type MetricsAuth, metricsGuard } from './metrics-auth.js';
import { isHardened, withSecurityHeaders } from './security-headers.js';

/** A refusal with an HTTP status and the `detail` a client shows. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export interface AppOptions {
  service: string;
  /** The release version (RELEASE_VERSION), in /health and, unless apiVersion says otherwise, the OpenAPI info. */
  version: string;
  /** The API description's own version where a spec fixes one apart from the release (the simulator's). */
  apiVersion?: string;
  logger: Logger;
  title?: string;
  description?: string;
  /**
   * Extra fields of GET /health, e.g. `{ broker: 'connected', database: 'connected' }`, shown only to
   * a caller healthDetail accepts.
   */
  health?: () => Promise<Record<string, unknown>> | Record<string, unknown>;
  /**
   * Whether the request carries the service's own credential. Without it GET /health answers
   * `{status}` only: service, version, uptime and the extras tell a stranger what to attack.
   */
  healthDetail?: (c: Context) => boolean | Promise<boolean>;
  /** METRICS_TOKEN / METRICS_BASIC_AUTH; null or unset: /metrics is open. */
  metricsAuth?: MetricsAuth | null;
  /**
   * Largest request body in bytes; larger bodies get 413. A function gives a route its own limit
   * (a file upload) while every other route keeps the small one.
   */
  bodyLimit?: number | ((c: Context) => number);
  /**
   * True for a request whose route reads its own (large) body as it arrives, with readBodyChunks and
   * its bodyLimit: the front layer neither collects that body nor looks into it (refuseNul).
   */
  streamBody?: (c: Context) => boolean;
  metrics?: Metrics;
  /** Paths not logged per request (health probes, metrics scrapes). */
  quietPaths?: string[];
  /**
   * Runs before every route (health and docs included) and before the body is read: allowlists,
   * rate limits, authentication. A Response it returns is the answer (logged, counted, with the
   * security headers); undefined lets the request through.
   */
  guard?: (c: Context) => Response | undefined | Promise<Response | undefined>;
  /** The credential the API asks for, declared in the OpenAPI document (see DocumentSecurity). */
  security?: DocumentSecurity;
  /** The body of a 422 the gateway itself gives (a NUL in the request), where a service's 422s carry more than `detail`. */
  unprocessable?: (detail: string) => Record<string, unknown>;
}

export type OutpostApp = OpenAPIHono & {
  metrics: Metrics;
  /** Hot GETs answered ahead of Hono by serveApp's server (see FastReads). */
  fastReads: FastReads;
};

export const DEFAULT_BODY_LIMIT = 64 * 1024;

/** Validation failures from zod become 422 with every bad field named. */
export function validationHook(result: { success: boolean; error?: ZodError }, c: Context) {
  if (!result.success && result.error) return c.json({ detail: formatIssues(result.error) }, 422);
  return undefined;
}

/**
 * The gateway every service builds on: health, metrics, OpenAPI with local docs, request logging,
 * bounded bodies and one error mapping to `{detail}`.
 */
export function createApp(opts: AppOptions): OutpostApp {
  const started = Date.now();
  const log = opts.logger.child({ component: 'http' });
  const metrics = opts.metrics ?? createMetrics(opts.service);
  const quiet = new Set(opts.quietPaths ?? ['/health', '/metrics']);
  const app = new OpenAPIHono({ defaultHook: validationHook }) as OutpostApp;
  app.metrics = metrics;
  app.fastReads = new FastReads(routeRecorder(metrics), log, quiet);

  // One front layer (each Hono middleware costs a small GET about a tenth of its time): the guard,
  // timing, the request log, metrics and the security headers.
  const observe = metricsRecorder(metrics);
  const guard = opts.guard;
  const limitOption = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const maxSizeFor = (c: Context): number =>
    typeof limitOption === 'function' ? limitOption(c) : limitOption;
  const tooLarge = (c: Context) => refusedBody(c, 'too_large', maxSizeFor(c));
  const bodyRead = new WeakSet<Context>();
  app.use('*', async (c, next) => {
    const start = performance.now();
    try {
      // A guard that answers at once is not awaited: each await is a turn of the microtask queue.
      const verdict = guard ? guard(c) : undefined;
      const refused = verdict instanceof Promise ? await verdict : verdict;
      if (refused) {
        c.res = refused;
        return;
      }
      const streamed = opts.streamBody?.(c) === true;
      if (streamed) markStreamed(c);
      const body = streamed ? 'streamed' : hasBody(c) ? await readNodeBody(c, maxSizeFor(c)) : 'not_node';
      if (body === 'too_large' || body === 'aborted') c.res = refusedBody(c, body, maxSizeFor(c));
      else {
        if (body === 'read') bodyRead.add(c);
        await next();
      }
    } finally {
      const ms = performance.now() - start;
      observe(c, ms);
      if (!isHardened(c)) {
        // Reassigning the same Response would make Hono copy it and drop headers set in place.
        const hardened = withSecurityHeaders(c.res);
        if (hardened !== c.res) c.res = hardened;
      }
      // The entry is not even built when info is off (LOG_LEVEL=warn): a busy read path skips it whole.
      if (log.isLevelEnabled('info') && !quiet.has(c.req.path)) {
        log.info(
          { method: c.req.method, path: c.req.path, status: c.res.status, ms: +ms.toFixed(2) },
          'request',
        );
      }
    }
  });
  // Outside Node (app.request(), other runtimes) the body is read by Hono, bounded here. Only
  // methods that carry a body: asking a GET for its body would build a full web Request.
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', (c, next) =>
    bodyRead.has(c) || isStreamed(c)
      ? next()
      : bodyLimit({ maxSize: maxSizeFor(c), onError: tooLarge })(c, next),
  );

  app.use('*', refuseNul(opts.unprocessable));

  app.onError((err, c) => {
    if (err instanceof HttpError) {
      for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
      return c.json({ detail: err.detail }, err.status);
    }
    if (err instanceof HTTPException) {
      // Hono's auth middlewares build their own answer, with the WWW-Authenticate challenge.
      if (err.res) return err.getResponse();
      const status = err.status as ContentfulStatusCode;
      const detail = err.message || (status === 400 ? 'Bad request' : 'Request refused');
      return c.json({ detail }, status);
    }
    if (err instanceof SyntaxError) return c.json({ detail: 'Malformed JSON in request body' }, 400);
    if (isDatabaseUnavailable(err)) {
      log.warn({ err: loggableError(err), method: c.req.method, path: c.req.path }, 'database unavailable');
      return c.json({ detail: DATABASE_UNAVAILABLE_DETAIL }, 503);
    }
    const invalid = invalidDataDetail(err);
    if (invalid) return c.json({ detail: invalid }, 422);
    log.error({ err: loggableError(err), method: c.req.method, path: c.req.path }, 'unhandled error');
    return c.json({ detail: 'Internal server error' }, 500);
  });
  // A path that exists under other methods answers 405 with them in Allow, whatever the method
  // (TRACE, OPTIONS, a made-up one): "not found" would tell a client the path itself is wrong.
  const allowed = allowedMethods(app);
  app.notFound((c) => {
    const allow = allowed(c.req.path);
    if (allow.length === 0) return c.json({ detail: `Not found: ${c.req.method} ${c.req.path}` }, 404);
    return c.json({ detail: `Method ${c.req.method} not allowed on ${c.req.path}` }, 405, {
      Allow: allow.join(', '),
    });
  });

  app.get('/health', async (c) => {
    if (!(opts.healthDetail && (await opts.healthDetail(c)))) return c.json({ status: 'healthy' });
    const extra = opts.health ? await opts.health() : {};
    return c.json({
      status: 'healthy',
      service: opts.service,
      version: opts.version,
      uptime_seconds: Math.floor((Date.now() - started) / 1000),
      ...extra,
    });
  });
  if (opts.metricsAuth) app.use('/metrics', metricsGuard(opts.metricsAuth));
  app.get('/metrics', async (c) =>
    c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType }),
  );

  const title = opts.title ?? `Outpost ${opts.service}`;
  // Built at each request from the routes registered by then, and completed with what the gateway
  // itself answers (see completeDocument).
  app.get('/api/openapi.json', (c) =>
    c.json(
      completeDocument(
        app.getOpenAPIDocument({
          openapi: '3.0.3',
          info: { title, version: opts.apiVersion ?? opts.version, description: opts.description },
        }),
        opts.security,
      ),
    ),
  );
  mountDocs(app, title);
  return app;
}
