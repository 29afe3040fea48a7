import { createRoute, z } from '@hono/zod-openapi';
import { generator } from '@outpost/contracts';
import { errorResponses } from './context.js';

/** A JSON response in the OpenAPI document. */
export const json = <T extends z.ZodType>(schema: T, description = 'OK') => ({
  content: { 'application/json': { schema } },
  description,
});

/** A JSON request body; required unless the route says otherwise. */
export const body = <T extends z.ZodType>(schema: T, required = true) => ({
  body: { content: { 'application/json': { schema } }, required },
});

/** A row id in the path: a positive PostgreSQL integer, so a larger one is a 422, not a database error. */
export const IdParam = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });

/**
 * GET, PUT and DELETE of one stored item at `<collection>/{id}`, as schedules and webhooks expose them:
 * the item's view on GET and PUT, `{success, message}` on DELETE, 404 for an unknown id.
 */
export function itemRoutes<Item extends z.ZodType, Update extends z.ZodType>(
  collection: string,
  tags: string[],
  item: Item,
  update: Update,
) {
  const path = `${collection}/{id}`;
  return {
    get: createRoute({
      method: 'get',
      path,
      tags,
      request: { params: IdParam },
      responses: { 200: json(item), ...errorResponses([401, 404]) },
    }),
    put: createRoute({
      method: 'put',
      path,
      tags,
      request: { params: IdParam, ...body(update) },
      responses: { 200: json(item), ...errorResponses([400, 401, 404, 422]) },
    }),
    delete: createRoute({
      method: 'delete',
      path,
      tags,
      request: { params: IdParam },
      responses: { 200: json(generator.ActionResponse), ...errorResponses([401, 404]) },
    }),
  };
}
