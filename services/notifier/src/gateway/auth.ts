import { notifier } from '@outpost/contracts';
import type { MiddlewareHandler } from 'hono';
import { errors, jwtVerify } from 'jose';

const { issuer, audience } = notifier.SERVICE_TOKEN;

/** The bearer token of an Authorization header, or null. */
const bearer = (header: string | undefined) => /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1] ?? null;

/** Verifies a service token: HS256 with the notifier's key, the controller as issuer, unexpired. */
function verifier(secret: string) {
  const key = new TextEncoder().encode(secret);
  return (token: string) =>
    jwtVerify(token, key, { algorithms: ['HS256'], issuer, audience, requiredClaims: ['exp', 'iat', 'sub'] });
}

/** Whether an Authorization header carries a valid service token (the key to /health's detail). */
export function serviceTokenValid(secret: string): (header: string | undefined) => Promise<boolean> {
  const verify = verifier(secret);
  return async (header) => {
    const token = bearer(header);
    if (!token) return false;
    try {
      await verify(token);
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
  const verify = verifier(secret);
  return async (c, next) => {
    const token = bearer(c.req.header('authorization'));
    if (!token)
      return c.json({ detail: 'Not authenticated: bearer token required' }, 401, {
        'WWW-Authenticate': 'Bearer',
      });
    try {
      await verify(token);
    } catch (err) {
      const detail = err instanceof errors.JWTExpired ? 'Token expired' : 'Invalid token';
      return c.json({ detail }, 401, { 'WWW-Authenticate': 'Bearer' });
    }
    return next();
  };
}
