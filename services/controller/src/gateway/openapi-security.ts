import type { OpenAPIHono } from '@hono/zod-openapi';

/**
 * Marks each documented operation that the gateway guards with the bearer scheme, so the docs' "Try it
 * out" sends the token and generated clients know which calls need one. Run once every route is mounted;
 * the document itself is built on request, from the registry this edits.
 */
export function declareBearer(
  // biome-ignore lint/suspicious/noExplicitAny: any app's registry, whatever its environment type
  app: OpenAPIHono<any>,
  scheme: string,
  guarded: (path: string) => boolean,
): void {
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== 'route') continue;
    const route = def.route;
    // The registry holds OpenAPI paths (/api/webhooks/{id}); the guard decides on the prefix alone.
    if (route.security === undefined && guarded(route.path)) route.security = [{ [scheme]: [] }];
  }
}

/**
 * What the gateway's limits answer, in the document of every /api operation they guard: the per-client
 * /api limit is checked before the token and the route (so its 429 can come before a 401, 404 or 405),
 * the credential limit after both, on a password attempt alone (gateway.ts, guard).
 */
export const RATE_LIMIT_ANSWER =
  'Too many requests: the per-client limit on /api (30 requests a second), checked before the token and the route, so it answers before a 401, 404 or 405; on POST /api/auth/login and /api/auth/password also the limit on password attempts (5 a minute), checked after them. Retry-After gives the seconds to wait.';

export function declareRateLimit(
  // biome-ignore lint/suspicious/noExplicitAny: any app's registry, whatever its environment type
  app: OpenAPIHono<any>,
  limited: (path: string) => boolean,
): void {
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== 'route' || !limited(def.route.path)) continue;
    def.route.responses[429] = {
      description: RATE_LIMIT_ANSWER,
      headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } } },
    };
  }
}
