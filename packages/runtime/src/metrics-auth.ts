import type { MiddlewareHandler } from 'hono';
import { basicAuth } from 'hono/basic-auth';
import { bearerAuth } from 'hono/bearer-auth';
import type { MetricsAuth } from './metrics-credentials.js';

export { type MetricsAuth, metricsAuthFromEnv, metricsEnvShape } from './metrics-credentials.js';

const refused = {
  detail: 'Not authenticated: /metrics needs credentials (METRICS_TOKEN or METRICS_BASIC_AUTH)',
};

/**
 * Hono's bearer and basic auth in front of /metrics. With both configured, the scheme the client
 * names picks the check, so a Prometheus job may use either.
 */
export function metricsGuard(auth: MetricsAuth): MiddlewareHandler {
  const bearer = auth.token
    ? bearerAuth({
        token: auth.token,
        realm: 'metrics',
        noAuthenticationHeader: { message: refused },
        invalidAuthenticationHeader: { message: { detail: 'Malformed Authorization header' } },
        invalidToken: { message: { detail: 'Invalid metrics token' } },
      })
    : null;
  const basic = auth.basic
    ? basicAuth({
        username: auth.basic.username,
        password: auth.basic.password,
        realm: 'metrics',
        invalidUserMessage: refused,
      })
    : null;
  return (c, next) => {
    const scheme = (c.req.header('authorization') ?? '').split(' ', 1)[0]?.toLowerCase();
    if (basic && (scheme === 'basic' || !bearer)) return basic(c, next);
    return (bearer as MiddlewareHandler)(c, next);
  };
}
