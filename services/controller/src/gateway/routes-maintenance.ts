import { createRoute, z } from '@hono/zod-openapi';
import { generator, health } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import { MaintenanceInvalid } from '../maintenance-service.js';
import type { ControllerService } from '../controller-service.js';
import { actorOf, errorResponses, router } from './context.js';
import { body, json } from './openapi.js';

const tags = ['maintenance'];
const NOT_FOUND = 'Maintenance item not found';

/** Service reminders: /api/maintenance/items CRUD and marking an item done (history kept). */
export function maintenanceRoutes(svc: ControllerService) {
  const r = router();
  const m = svc.maintenance;
  const found = <T>(value: T | null): T => {
    if (value === null) throw new HttpError(404, NOT_FOUND);
    return value;
  };

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/maintenance/items',
      tags,
      summary: 'Every item with its due engine hours and date, status (ok, upcoming, due) and history',
      responses: { 200: json(z.array(health.MaintenanceItem)), ...errorResponses([401]) },
    }),
    async (c) => c.json(await m.list(), 200),
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/maintenance/items',
      tags,
      summary: 'A new item; its first service is one interval from now',
      request: body(health.MaintenanceItemInput),
      responses: { 201: json(health.MaintenanceItem), ...errorResponses([400, 401, 422]) },
    }),
    async (c) => c.json(await m.create(c.req.valid('json'), actorOf(c)), 201),
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/maintenance/items/{id}',
      tags,
      request: { params: health.MaintenanceIdParam },
      responses: { 200: json(health.MaintenanceItem), ...errorResponses([401, 404, 422]) },
    }),
    async (c) => c.json(found(await m.get(c.req.valid('param').id)), 200),
  );

  r.openapi(
    createRoute({
      method: 'put',
      path: '/api/maintenance/items/{id}',
      tags,
      summary: 'Change name, intervals or lead times; the notices of this cycle start afresh',
      description:
        'An item keeps at least one interval. The body alone says whether it does: an interval may be cleared (null) only beside a number for the other, so a body the schema allows is never refused for what the stored item holds.',
      request: { params: health.MaintenanceIdParam, ...body(health.MaintenanceItemUpdate) },
      responses: { 200: json(health.MaintenanceItem), ...errorResponses([400, 401, 404, 422]) },
    }),
    async (c) => {
      try {
        const item = await m.update(c.req.valid('param').id, c.req.valid('json'), actorOf(c));
        return c.json(found(item), 200);
      } catch (err) {
        if (err instanceof MaintenanceInvalid) throw new HttpError(422, err.message);
        throw err;
      }
    },
  );

  r.openapi(
    createRoute({
      method: 'delete',
      path: '/api/maintenance/items/{id}',
      tags,
      summary: 'Remove an item; its history stays in the audit log and the history table',
      request: { params: health.MaintenanceIdParam },
      responses: { 200: json(generator.ActionResponse), ...errorResponses([401, 404, 422]) },
    }),
    async (c) => {
      found((await m.remove(c.req.valid('param').id, actorOf(c))) || null);
      return c.json({ success: true, message: 'Maintenance item deleted' }, 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/maintenance/items/{id}/done',
      tags,
      summary: 'Mark the item done now, at the current engine hours; clears its due state',
      request: { params: health.MaintenanceIdParam, ...body(health.MaintenanceDoneRequest, false) },
      responses: { 200: json(health.MaintenanceItem), ...errorResponses([400, 401, 404, 422]) },
    }),
    async (c) => {
      const note = c.req.valid('json')?.note ?? null;
      return c.json(found(await m.done(c.req.valid('param').id, actorOf(c), note)), 200);
    },
  );

  return r;
}
