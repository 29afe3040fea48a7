import { notifier } from '@outpost/contracts';
import type { MiddlewareHandler } from 'hono';
import { errors, jwtVerify } from 'jose';

const { issuer, audience } = notifier.SERVICE_TOKEN;

/** Whether an Authorization header carries a valid service token (the key to /health's detail). */
export function serviceTokenValid(secret: string): (header: string | undefined) => Promise<boolean> {
  const key = new TextEncoder().encode(secret);
  return async (header) => {
    const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!m) return false;
    try {
      await jwtVerify(m[1]!, key, {
        algorithms: ['HS256'],
        issuer,
        audience,
        requiredClaims: ['exp', 'iat', 'sub'],
      });
      return true;
    } catch {
      return false;
    }
  };
}

/**
 * Only the controller may call the API: `Authorization: Bearer <jwt>` signed with NOTIFIER_API_SECRET
 * (HS256), issued by the controller for the notifier, unexpired. A user's token for the controller is
 * signed with another key and names no audience, so a logged-out or stolen one is worthless here.
 */
export function requireServiceToken(secret: string): MiddlewareHandler {
  const key = new TextEncoder().encode(secret);
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m)
      return c.json({ detail: 'Not authenticated: bearer token required' }, 401, {
        'WWW-Authenticate': 'Bearer',
      });
    try {
      await jwtVerify(m[1]!, key, {
        algorithms: ['HS256'],
        issuer,
        audience,
        requiredClaims: ['exp', 'iat', 'sub'],
      });
    } catch (err) {
      const detail = err instanceof errors.JWTExpired ? 'Token expired' : 'Invalid token';
      return c.json({ detail }, 401, { 'WWW-Authenticate': 'Bearer' });
    }
    return next();
  };
}
