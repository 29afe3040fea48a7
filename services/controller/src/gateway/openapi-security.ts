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
