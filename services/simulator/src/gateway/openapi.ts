import { createRoute, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HttpError } from '@outpost/runtime';
import { z } from 'zod';
import { ServiceError } from '../app/service-error.js';

export const Detail = z.object({ detail: z.string() });

const errorResponses = {
  401: { description: 'No session (log in first)', content: { 'application/json': { schema: Detail } } },
  422: { description: 'Invalid request', content: { 'application/json': { schema: Detail } } },
} as const;

export interface JsonRouteDef {
  method: 'get' | 'post';
  path: string;
  summary: string;
  tags: string[];
  body?: z.ZodType;
  query?: z.ZodObject;
  params?: z.ZodObject;
  response: z.ZodType;
  /** Extra documented error statuses (404, 409, 429, ...). */
  errors?: Record<number, string>;
}

/**
 * Declares a documented JSON route. Handlers read validated input through `input(c, 'json')`; the
 * runtime's validation hook turns schema failures into 422 `{detail}` before they run.
 */
export function jsonRoute(
  app: OpenAPIHono,
  def: JsonRouteDef,
  handler: (c: Context) => Promise<Response> | Response,
): void {
  const responses: Record<number, unknown> = {
    200: { description: 'OK', content: { 'application/json': { schema: def.response } } },
    ...errorResponses,
  };
  for (const [status, description] of Object.entries(def.errors ?? {})) {
    responses[Number(status)] = { description, content: { 'application/json': { schema: Detail } } };
  }
  const request: Record<string, unknown> = {};
  if (def.body) request.body = { content: { 'application/json': { schema: def.body } }, required: true };
  if (def.query) request.query = def.query;
  if (def.params) request.params = def.params;
  const route = createRoute({
    method: def.method,
    path: def.path,
    summary: def.summary,
    tags: def.tags,
    request,
    responses,
  } as unknown as RouteConfig);
  const mapped = async (c: Context) => {
    try {
      return await handler(c);
    } catch (err) {
      if (err instanceof ServiceError) throw new HttpError(err.status, err.detail);
      throw err;
    }
  };
  app.openapi(route, mapped as never);
}

export function input<T>(c: Context, target: 'json' | 'query' | 'param'): T {
  return (c.req.valid as (t: string) => unknown)(target) as T;
}
