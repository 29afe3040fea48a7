import { OpenAPIHono } from '@hono/zod-openapi';
import { HttpError, validationHook } from '@outpost/runtime';
import type { Context } from 'hono';
import type { TokenClaims } from '../auth/auth-service.js';
import type { AuditLog } from '../db/audit-log.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import type { Actor } from '../domain/types.js';

/** What the network gate hands to every route: the client address and the verified token. */
export interface GatewayVariables {
  clientIp: string;
  auth: TokenClaims | null;
}
export type GatewayEnv = { Variables: GatewayVariables };

export const router = () => new OpenAPIHono<GatewayEnv>({ defaultHook: validationHook });

export const actorOf = (c: Context<GatewayEnv>): Actor => ({
  who: c.get('auth')?.username ?? 'anonymous',
  from: c.get('clientIp'),
});

/** Writes audit entries as the request's actor, at the service clock's time. */
export const auditor =
  (svc: { audit: AuditLog; clock: Clock }) =>
  (c: Context<GatewayEnv>, action: string, details?: Record<string, unknown>): Promise<void> => {
    const a = actorOf(c);
    return svc.audit.write({ at: svc.clock.now(), who: a.who, from: a.from, action, details });
  };

const STATUS: Record<string, 409 | 503 | 422> = {
  already_running: 409,
  epo: 409,
  quiet: 409,
  not_armed: 409,
  lockout: 409,
  cooldown: 409,
  force_stop: 409,
  genset_stop: 409,
  genset_shutdown: 409,
  not_quiet: 409,
  not_locked_out: 409,
  relay_unavailable: 503,
  db_unavailable: 503,
  invalid: 422,
};

/** Runs a domain call; refusals become HTTP errors with the domain's message as detail. */
export async function domain<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DomainError) throw new HttpError(STATUS[err.code] ?? 409, err.message);
    throw err;
  }
}

export const sec = (ms: number | null | undefined): number | null =>
  ms === null || ms === undefined ? null : Math.floor(ms / 1000);

/** Common OpenAPI error responses. */
export const errorResponses = (codes: number[]) => {
  const text: Record<number, string> = {
    400: 'Malformed JSON',
    401: 'Missing or invalid bearer token',
    403: 'Client not on the allowlist',
    404: 'Not found',
    409: 'Refused by the generator state',
    422: 'Invalid request (detail names each field)',
    429: 'Too many requests',
    503: 'Database or relay link unavailable',
  };
  return Object.fromEntries(codes.map((code) => [code, { description: text[code] ?? 'Error' }]));
};
