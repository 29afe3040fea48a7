import type { AuthService, TokenClaims } from '../auth/auth-service.js';
import { isNotifierPath } from './notifier-proxy.js';
import { clientAddress, type inRanges, inRangesMemo, type RateLimitGate } from './network.js';

/** What the gateway decided for a request, before any route or body is touched. */
export type Admission =
  | { kind: 'admit'; ip: string; auth: TokenClaims | null }
  | { kind: 'forbidden'; ip: string }
  | { kind: 'too_many'; wait: number }
  /** No bearer token (sent: false), or one that is not valid (sent: true). */
  | { kind: 'unauthorized'; sent: boolean }
  /** /api/notifications/* and /api/system-notifications/*: forwarded with the caller's name. */
  | { kind: 'notifier'; auth: TokenClaims };

/** The request as the checks see it, from Node's request or from Hono's. */
export interface AdmissionRequest {
  path: string;
  method: string;
  /** The socket peer address. */
  peer: string | undefined;
  header(name: string): string | undefined;
}

type Ranges = Parameters<typeof inRanges>[1];

/** Paths under /api that need no token. */
const PUBLIC_API = new Set(['/api/auth/login', '/api/openapi.json', '/api/docs', '/api/redoc']);
export const isPublic = (path: string) =>
  PUBLIC_API.has(path) || path.startsWith('/api/docs/') || path.startsWith('/api/redoc/');

/**
 * The allowlist, then the /api rate limit, then the bearer token, then the credential limit, each
 * counted once per request. Synchronous unless the token is new to this process (jwtVerify): a
 * request with a known token is decided without a promise.
 */
export function admission(
  deps: { auth: AuthService; limiter: RateLimitGate; allowed: Ranges; trusted: Ranges },
  req: AdmissionRequest,
): Admission | Promise<Admission> {
  const { path } = req;
  const ip = clientAddress(req.peer, req.header('x-forwarded-for'), deps.trusted);
  if (deps.allowed.length > 0 && !inRangesMemo(ip, deps.allowed)) return { kind: 'forbidden', ip };
  const wait = deps.limiter.checkApi(path, ip);
  if (wait > 0) return { kind: 'too_many', wait };
  if (!path.startsWith('/api/') || isPublic(path)) return admit(deps.limiter, req, ip, null);
  const match = /^Bearer\s+(\S+)$/i.exec(req.header('authorization') ?? '');
  if (!match) return { kind: 'unauthorized', sent: false };
  const token = match[1] as string;
  const known = deps.auth.verifyKnown(token);
  if (known !== undefined) return authorized(deps.limiter, req, ip, known);
  return deps.auth.verify(token).then((auth) => authorized(deps.limiter, req, ip, auth));
}

function authorized(
  limiter: RateLimitGate,
  req: AdmissionRequest,
  ip: string,
  auth: TokenClaims | null,
): Admission {
  if (!auth) return { kind: 'unauthorized', sent: true };
  if (isNotifierPath(req.path)) return { kind: 'notifier', auth };
  return admit(limiter, req, ip, auth);
}

function admit(
  limiter: RateLimitGate,
  req: AdmissionRequest,
  ip: string,
  auth: TokenClaims | null,
): Admission {
  // Credential attempts are counted once the request is one (a POST, with its session if it needs one).
  const attempts = limiter.checkCredential(req.path, req.method, ip);
  if (attempts > 0) return { kind: 'too_many', wait: attempts };
  return { kind: 'admit', ip, auth };
}
