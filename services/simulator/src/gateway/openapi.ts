import { createRoute, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { simulator } from '@outpost/contracts';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { z } from 'zod';
import { ServiceError } from '../app/service-error.js';

export const Detail = z.object({ detail: z.string() });

const errorResponses = {
  401: { description: 'No session (log in first)', content: { 'application/json': { schema: Detail } } },
  422: {
    description:
      'Invalid request: `detail` joins the messages with "; ", `messages` lists them one by one (one per bad field, or one per missing choice at start)',
    content: { 'application/json': { schema: simulator.ValidationErrorBody } },
  },
} as const;

/** Schema failures answer like the start checks: `detail` plus the individual `messages`. */
function validationHook(result: { success: boolean; error?: ZodError }, c: Context) {
  if (result.success || !result.error) return undefined;
  const messages = result.error.issues.map(
    (i) => `${i.path.length ? i.path.map(String).join('.') : '(body)'}: ${i.message}`,
  );
  return c.json({ detail: messages.join('; '), messages }, 422);
}

export interface JsonRouteDef {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  tags: string[];
  body?: z.ZodType;
  /** A file sent as the whole body (not JSON): the media types it may come as, and what it holds. */
  file?: { types: readonly string[]; description: string };
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
    const schema = status === '409' ? simulator.ConflictBody : Detail;
    responses[Number(status)] = { description, content: { 'application/json': { schema } } };
  }
  const request: Record<string, unknown> = {};
  if (def.body) request.body = { content: { 'application/json': { schema: def.body } }, required: true };
  if (def.file) {
    // Documented only: the library validates JSON and form bodies, so the handler reads the file itself.
    const schema = z.string().meta({ format: 'binary' });
    const content = Object.fromEntries(def.file.types.map((type) => [type, { schema }]));
    request.body = { description: def.file.description, content, required: true };
  }
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
      // The extra fields (a 422's messages, a 409's banner) are part of the answer, not only the detail.
      if (err instanceof ServiceError) {
        return c.json({ detail: err.detail, ...err.extra }, err.status as ContentfulStatusCode);
      }
      throw err;
    }
  };
  app.openapi(route, mapped as never, validationHook as never);
}

export function input<T>(c: Context, target: 'json' | 'query' | 'param'): T {
  return (c.req.valid as (t: string) => unknown)(target) as T;
}
