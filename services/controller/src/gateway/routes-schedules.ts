import { createRoute, z } from '@hono/zod-openapi';
import { generator } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import { EXERCISE_DEFAULTS, type ScheduleRow } from '../db/schedule-store.js';
import { nextDaily } from '../domain/schedule-time.js';
import type { ControllerService } from '../controller-service.js';
import { auditor, errorResponses, router, sec } from './context.js';
import { body, itemRoutes, json } from './openapi.js';

const tags = ['schedules'];

export function scheduleRoutes(svc: ControllerService) {
  const r = router();
  const view = (row: ScheduleRow) => ({
    id: row.id,
    name: row.name,
    days_of_week: row.days_of_week,
    start_time: row.start_time,
    duration_minutes: row.duration_minutes,
    enabled: row.enabled,
    next_execution: sec(svc.scheduler.nextFor(row)),
    last_run_at: sec(row.last_run_at),
    last_result: row.last_result,
  });
  const audit = auditor(svc);
  const item = itemRoutes('/api/schedules', tags, generator.Schedule, generator.ScheduleUpdate);
  const changed = () => svc.scheduler.reload();

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/schedules',
      tags,
      responses: { 200: json(z.array(generator.Schedule)), ...errorResponses([401]) },
    }),
    async (c) => c.json((await svc.schedules.list()).map(view), 200),
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/schedules',
      tags,
      summary: `Create a weekly schedule; days_of_week 0 = Sunday … 6 = Saturday, start_time HH:MM in the controller's time zone`,
      request: body(generator.ScheduleInput),
      responses: { 201: json(generator.Schedule), ...errorResponses([400, 401, 422]) },
    }),
    async (c) => {
      const input = c.req.valid('json');
      const row = await svc.schedules.create(
        { ...input, days_of_week: [...new Set(input.days_of_week)].sort() },
        svc.clock.now(),
      );
      await audit(c, 'schedule.create', { id: row.id, ...input });
      await changed();
      return c.json(view(row), 201);
    },
  );

  r.openapi(item.get, async (c) => {
    const row = await svc.schedules.get(c.req.valid('param').id);
    if (!row) throw new HttpError(404, 'Schedule not found');
    return c.json(view(row), 200);
  });

  r.openapi(item.put, async (c) => {
    const { id } = c.req.valid('param');
    const patch = c.req.valid('json');
    const row = await svc.schedules.update(id, patch, svc.clock.now());
    if (!row) throw new HttpError(404, 'Schedule not found');
    await audit(c, 'schedule.update', { id, ...patch });
    await changed();
    return c.json(view(row), 200);
  });

  r.openapi(item.delete, async (c) => {
    const { id } = c.req.valid('param');
    if (!(await svc.schedules.remove(id))) throw new HttpError(404, 'Schedule not found');
    await audit(c, 'schedule.delete', { id });
    await changed();
    return c.json({ success: true, message: 'Schedule deleted' }, 200);
  });

  const exerciseView = async () => {
    const row = (await svc.schedules.exerciseRow()) ?? {
      ...EXERCISE_DEFAULTS,
      next_exercise_at: null,
      last_run_at: null,
      last_result: null,
    };
    return {
      enabled: row.enabled,
      frequency_days: row.frequency_days,
      start_time: row.start_time,
      duration_minutes: row.duration_minutes,
      until_battery_full: row.until_battery_full,
      battery_full_soc: row.battery_full_soc,
      max_duration_minutes: row.max_duration_minutes,
      next_exercise_date: row.enabled ? sec(row.next_exercise_at) : null,
      last_run_at: sec(row.last_run_at),
      last_result: row.last_result,
    };
  };

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/exercise',
      tags: ['exercise'],
      responses: { 200: json(generator.ExerciseStatus), ...errorResponses([401]) },
    }),
    async (c) => c.json(await exerciseView(), 200),
  );

  r.openapi(
    createRoute({
      method: 'put',
      path: '/api/exercise',
      tags: ['exercise'],
      summary:
        'Exercise schedule: every frequency_days at start_time, for duration_minutes, under the automated gates; with until_battery_full it runs on while the soc source is below battery_full_soc, up to max_duration_minutes',
      request: body(generator.ExerciseSettingsUpdate),
      responses: { 200: json(generator.ExerciseStatus), ...errorResponses([400, 401, 422]) },
    }),
    async (c) => {
      const patch = c.req.valid('json');
      const current = (await svc.schedules.exerciseRow()) ?? { ...EXERCISE_DEFAULTS, next_exercise_at: null };
      const next = { ...current, ...patch };
      const timingChanged =
        patch.start_time !== undefined || patch.frequency_days !== undefined || patch.enabled === true;
      const nextAt =
        next.enabled && (timingChanged || current.next_exercise_at === null)
          ? nextDaily(next.start_time, svc.config.timezone, svc.clock.now())
          : next.enabled
            ? current.next_exercise_at
            : null;
      await svc.schedules.saveExercise({
        enabled: next.enabled,
        frequency_days: next.frequency_days,
        start_time: next.start_time,
        duration_minutes: next.duration_minutes,
        until_battery_full: next.until_battery_full,
        battery_full_soc: next.battery_full_soc,
        max_duration_minutes: next.max_duration_minutes,
        next_exercise_at: nextAt,
      });
      await audit(c, 'exercise.update', patch);
      await changed();
      return c.json(await exerciseView(), 200);
    },
  );

  return r;
}
