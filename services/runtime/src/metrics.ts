import type { MiddlewareHandler } from 'hono';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
}

/** A registry per service with the process defaults and HTTP timings by route. */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return { registry, httpDuration };
}

export function metricsMiddleware(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      // routePath is the matched pattern (/api/x/:id), so labels stay bounded whatever the URL.
      const route = c.req.routePath || 'unmatched';
      metrics.httpDuration.observe(
        { method: c.req.method, route, status: String(c.res.status) },
        (performance.now() - start) / 1000,
      );
    }
  };
}
