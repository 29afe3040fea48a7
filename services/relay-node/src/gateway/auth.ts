import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/** Paths under /api that stay open: the API's own documentation (it holds no secrets). */
const OPEN = new Set(['/api/openapi.json', '/api/docs', '/api/redoc']);

/** Whether a request carries the relay node key (hashed first: constant time whatever the guess). */
export function hasApiKey(secret: string): (key: string | undefined) => boolean {
  const want = createHash('sha256').update(secret).digest();
  return (key) =>
    key !== undefined && key !== '' && timingSafeEqual(createHash('sha256').update(key).digest(), want);
}

/**
 * X-API-Key on every relay node endpoint. Both sides are hashed first so the comparison takes the same
 * time whatever the length or content of the guess.
 */
export function apiKeyAuth(secret: string): MiddlewareHandler {
  const want = createHash('sha256').update(secret).digest();
  return async (c, next) => {
    if (OPEN.has(c.req.path) || c.req.path.startsWith('/api/docs/') || c.req.path.startsWith('/api/redoc/')) {
      return next();
    }
    const key = c.req.header('x-api-key');
    if (key === undefined || key === '') return c.json({ detail: 'Missing X-API-Key header' }, 401);
    const got = createHash('sha256').update(key).digest();
    if (!timingSafeEqual(got, want)) return c.json({ detail: 'Invalid API key' }, 403);
    return next();
  };
}
