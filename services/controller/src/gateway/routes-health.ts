import { createRoute, z } from '@hono/zod-openapi';
import { genset, health } from '@outpost/contracts';
import type { ControllerService } from '../controller-service.js';
import { HttpError } from '@outpost/runtime';
import { actorOf, domain, errorResponses, router } from './context.js';
import { body, json } from './openapi.js';

const tags = ['health'];

/** Generator health: running feedback, its alarms and policy, the engine-hour meter. */
export function healthRoutes(svc: ControllerService) {
  const r = router();
  const ctl = svc.controller;

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/health',
      tags,
      summary: 'Running feedback, the standing health alarm and the engine-hour meter',
      responses: { 200: json(health.HealthStatus), ...errorResponses([401]) },
    }),
    (c) => c.json(ctl.healthStatus(), 200),
  );

  r.openapi(
    createRoute({
      method: 'put',
      path: '/api/health/settings',
      tags,
      summary:
        'Which source is the running feedback (none keeps today’s behaviour) and the fail-to-start policy',
      request: body(health.HealthSettingsUpdate),
      responses: { 200: json(health.HealthStatus), ...errorResponses([400, 401, 422, 503]) },
    }),
    async (c) => {
      await domain(() => ctl.updateHealthSettings(c.req.valid('json'), actorOf(c)));
      return c.json(ctl.healthStatus(), 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/health/running-feedback',
      tags,
      summary: 'Running feedback from an integration; acted on when the source is `api`',
      request: body(health.RunningFeedbackRequest),
      responses: { 200: json(health.HealthStatus), ...errorResponses([400, 401, 422]) },
    }),
    async (c) => {
      await ctl.runningFeedback('api', c.req.valid('json').running);
      return c.json(ctl.healthStatus(), 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'put',
      path: '/api/health/hour-meter',
      tags,
      summary: "Set the engine-hour meter to the generator's own reading (audited)",
      request: body(health.HourMeterSet),
      responses: { 200: json(health.HealthStatus), ...errorResponses([400, 401, 422, 503]) },
    }),
    async (c) => {
      await domain(() => ctl.setEngineHours(c.req.valid('json').hours, actorOf(c)));
      return c.json(ctl.healthStatus(), 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/genset',
      tags,
      summary:
        "The generator's own controller as the relay node reads it over Modbus: mode, engine state, instruments, alarms; every value null while stale (404 before the first report)",
      responses: { 200: json(genset.GensetState), ...errorResponses([401, 404]) },
    }),
    (c) => {
      const state = ctl.genset.state;
      if (!state)
        throw new HttpError(
          404,
          "No report from the generator's controller yet (the relay node reads it when GENSET_TRANSPORT is set)",
        );
      return c.json(state, 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/exercise/reports',
      tags: ['exercise'],
      summary: 'Each exercise run: confirmed by the running feedback, time to confirm, full duration, passed',
      request: { query: health.ExerciseReportsQuery },
      responses: { 200: json(z.array(health.ExerciseReport)), ...errorResponses([401, 422]) },
    }),
    async (c) => c.json(await svc.exerciseReports.list(c.req.valid('query').limit), 200),
  );

  return r;
}
