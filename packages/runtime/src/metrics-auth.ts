import type { MiddlewareHandler } from 'hono';
import { basicAuth } from 'hono/basic-auth';
import { bearerAuth } from 'hono/bearer-auth';
import { z } from 'zod';

/** Who may scrape /metrics: a bearer token, a basic-auth pair, either, or (both unset) anyone. */
export interface MetricsAuth {
  token?: string | undefined;
  basic?: { username: string; password: string } | undefined;
}

/**
 * METRICS_TOKEN and METRICS_BASIC_AUTH, part of every service's environment. Off by default so the
 * Prometheus and Grafana provisioning in infra/ keeps scraping without credentials.
 */
export const metricsEnvShape = {
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(512)
    // What RFC 6750 allows in a bearer token, so a client can send it unchanged.
    .regex(/^[A-Za-z0-9._~+/-]+=*$/, 'only letters, digits and -._~+/ (then = padding)')
    .optional(),
  METRICS_BASIC_AUTH: z
    .string()
    .max(400)
    .regex(/^[^:]+:.{12,}$/, 'expected user:password, the password at least 12 characters')
    .optional(),
} as const;

/** The MetricsAuth the two variables describe (null: /metrics stays open). */
export function metricsAuthFromEnv(e: {
  METRICS_TOKEN?: string | undefined;
  METRICS_BASIC_AUTH?: string | undefined;
}): MetricsAuth | null {
  if (!e.METRICS_TOKEN && !e.METRICS_BASIC_AUTH) return null;
  const pair = e.METRICS_BASIC_AUTH;
  const colon = pair?.indexOf(':') ?? -1;
  return {
    token: e.METRICS_TOKEN,
    basic:
      pair && colon > 0 ? { username: pair.slice(0, colon), password: pair.slice(colon + 1) } : undefined,
  };
}

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
