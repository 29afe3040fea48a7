import type { Context } from 'hono';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
}

/** A registry per service with the process defaults and HTTP timings by route. */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  // prom-client also exports these three gauges with a `_total` suffix, which Prometheus keeps for
  // counters (`promtool check metrics` refuses them); their per-type series without it stay, and
  // `sum(nodejs_active_handles)` gives the same figure.
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ])
    registry.removeSingleMetric(name);
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return { registry, httpDuration };
}

/** Records one answered request in the HTTP histogram; labels stay bounded (route is the matched pattern). */
export function metricsRecorder(metrics: Metrics): (c: Context, ms: number) => void {
  const observe = routeRecorder(metrics);
  return (c, ms) => observe(c.req.method, c.req.routePath || 'unmatched', c.res.status, ms);
}

/** The same record from the method, the route pattern and the status themselves. */
export function routeRecorder(
  metrics: Metrics,
): (method: string, route: string, status: number, ms: number) => void {
  // One child per method/route/status: labelling by object hashes the labels on every request.
  const children = new Map<string, { observe(value: number): void }>();
  return (method, route, status, ms) => {
    const key = `${method} ${route} ${status}`;
    let child = children.get(key);
    if (!child) {
      child = metrics.httpDuration.labels(method, route, String(status));
      children.set(key, child);
    }
    child.observe(ms / 1000);
  };
}

/**
 * A 0/1 gauge read at scrape time, so a safety flag (relay on, EPO engaged) can never go stale between
 * the change and the scrape.
 */
export function flagGauge(
  registry: Registry,
  name: string,
  help: string,
  read: () => boolean | undefined,
): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read() ? 1 : 0);
    },
  });
}
