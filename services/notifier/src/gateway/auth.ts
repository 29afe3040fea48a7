import type { MiddlewareHandler } from 'hono';
import { errors, jwtVerify } from 'jose';

/**
 * Only the controller's gateway (or anyone holding the shared JWT_SECRET) may call the API:
 * `Authorization: Bearer <jwt>`, HS256 only, expiry enforced by jose.
 */
export function requireBearer(secret: string): MiddlewareHandler {
  const key = new TextEncoder().encode(secret);
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m)
      return c.json({ detail: 'Not authenticated: bearer token required' }, 401, {
        'WWW-Authenticate': 'Bearer',
      });
    try {
      await jwtVerify(m[1]!, key, { algorithms: ['HS256'] });
    } catch (err) {
      const detail = err instanceof errors.JWTExpired ? 'Token expired' : 'Invalid token';
      return c.json({ detail }, 401, { 'WWW-Authenticate': 'Bearer' });
    }
    return next();
  };
}
