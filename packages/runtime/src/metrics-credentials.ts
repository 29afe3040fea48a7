import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** Who may scrape /metrics: a bearer token, a basic-auth pair, either, or (both unset) anyone. */
export interface MetricsAuth {
  token?: string | undefined;
  basic?: { username: string; password: string } | undefined;
}

/**
 * METRICS_TOKEN and METRICS_BASIC_AUTH, part of every service's environment and the broker's. Off by
 * default so the Prometheus and Grafana provisioning in infra/ keeps scraping without credentials.
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

// Digests first, so the comparison takes the same time whatever the lengths.
const same = (given: string, expected: string) =>
  timingSafeEqual(
    createHash('sha256').update(given).digest(),
    createHash('sha256').update(expected).digest(),
  );

/**
 * Whether an Authorization header satisfies `auth`, for a server without Hono (the broker's METRICS_PORT):
 * the scheme the client names picks the check, as metricsGuard does, so one Prometheus job fits both.
 */
export function metricsAuthorized(auth: MetricsAuth | null, header: string | undefined): boolean {
  if (!auth) return true;
  const m = /^(\S+)\s+(\S+)$/.exec(header ?? '');
  if (!m) return false;
  const scheme = (m[1] as string).toLowerCase();
  const value = m[2] as string;
  if (scheme === 'bearer' && auth.token) return same(value, auth.token);
  if (scheme === 'basic' && auth.basic) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    // Both halves compared, whichever fails, so the time says nothing about the user name.
    const user = same(decoded.slice(0, colon), auth.basic.username);
    const password = same(decoded.slice(colon + 1), auth.basic.password);
    return user && password;
  }
  return false;
}

/** The scheme a refused client is told to use (WWW-Authenticate). */
export const metricsChallenge = (auth: MetricsAuth): string =>
  auth.token ? 'Bearer realm="metrics"' : 'Basic realm="metrics"';
