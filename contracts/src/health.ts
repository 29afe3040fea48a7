import { z } from 'zod';
import { UnixSeconds } from './common.js';
import { GensetMode } from './genset.js';

/**
 * Where "the generator is actually running" comes from: the controller's GPIO line, the relay node's
 * (its retained state), MQTT, the API, or the generator's own controller read over Modbus by the relay
 * node (`genset`: its engine state; unknown while it is stale, never "stopped"); `none` keeps the
 * controller as it was.
 */
export const FEEDBACK_SOURCES = ['none', 'gpio', 'relaynode', 'mqtt', 'api', 'genset'] as const;
export const FeedbackSource = z.enum(FEEDBACK_SOURCES);
export type FeedbackSource = z.infer<typeof FeedbackSource>;

/**
 * What a start with no running feedback in time (or a run whose feedback drops) does to the relay:
 * drop it and lock out (the safe default), or keep it ON and only raise the alarm.
 */
export const FAIL_TO_START_POLICIES = ['drop_and_lockout', 'keep_running'] as const;
export const FailToStartPolicy = z.enum(FAIL_TO_START_POLICIES);
export type FailToStartPolicy = z.infer<typeof FailToStartPolicy>;

/**
 * Standing alarms. `relay_not_confirmed`: a run whose relay the relay node did not report ON within
 * 2 heartbeat intervals + 5 s of the start (it refused the lease, EPO, cut off, an earlier version).
 * `relay_node_report_unverified`: a relay node state report whose signature did not verify against
 * the pinned node key (or an epoch claim without the controller's own signature) was ignored.
 * `lease_not_published`: the controller is connected to the broker but could not publish its lease.
 */
export const HEALTH_ALARMS = [
  'fail_to_start',
  'unexpected_stop',
  'exercise_failed',
  'relay_not_confirmed',
  'relay_node_report_unverified',
  'lease_not_published',
] as const;
export const HealthAlarm = z.enum(HEALTH_ALARMS);
export type HealthAlarm = z.infer<typeof HealthAlarm>;

/**
 * Warnings from the generator's own controller on GET /api/health: its mode selector is not in Auto
 * (nor Auto with manual restore), so a remote start closes the relay and nothing happens; or it has
 * stopped answering the relay node.
 */
export const GENSET_HEALTH_WARNINGS = ['genset_not_in_auto', 'genset_unreachable'] as const;
export type GensetHealthWarning = (typeof GENSET_HEALTH_WARNINGS)[number];

const ON_OFF: Record<string, boolean> = { on: true, off: false, true: true, false: false };

/** `ON`, `OFF`, `true`, `false` (any case) or `{"running": true|false}`, blanks around allowed. */
const FEEDBACK_TEXT =
  /^\s*(?:[Oo][Nn]|[Oo][Ff][Ff]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|\{\s*"running"\s*:\s*(?:true|false)\s*\})\s*$/;

/**
 * Retained `controller/<id>/running_feedback`: `ON` / `OFF` (Home Assistant, a smart plug) or JSON
 * `{"running": true}` (an energy meter's automation). Read as a boolean; a boolean is also what is
 * written back, so a decoded value can be sent again.
 */
export const RunningFeedbackPayload = z.union([
  z.boolean(),
  z
    .string()
    .regex(FEEDBACK_TEXT, 'expected ON, OFF or {"running": true|false}')
    .transform((text): boolean => {
      const word = ON_OFF[text.trim().toLowerCase()];
      return word ?? (JSON.parse(text) as { running: boolean }).running;
    }),
]);

/** POST /api/health/running-feedback and the dev input. */
export const RunningFeedbackRequest = z.object({ running: z.boolean() }).strict();

/** PUT /api/health/settings. */
export const HealthSettings = z
  .object({ running_feedback_source: FeedbackSource, fail_to_start_policy: FailToStartPolicy })
  .strict();
export const HealthSettingsUpdate = HealthSettings.partial().strict();

/** Engine hours are set to match the generator's own meter; 100 000 h is far beyond any engine. */
export const HourMeterSet = z.object({ hours: z.number().nonnegative().max(100_000) }).strict();

/** GET /api/health. */
export const HealthStatus = z.object({
  running_feedback_source: FeedbackSource,
  /** null: no feedback source, or it has not reported yet. */
  running_feedback: z.boolean().nullable(),
  fail_to_start_policy: FailToStartPolicy,
  start_confirm_seconds: z.number().int().positive(),
  /** When the running feedback confirmed the current commanded run. */
  run_confirmed_at: UnixSeconds.nullable(),
  external_run_active: z.boolean(),
  alarm: HealthAlarm.nullable(),
  engine_hours: z.number().nonnegative(),
  /** The generator's own controller's mode selector; null: unknown (stale) or no report. */
  genset_mode: GensetMode.nullable().optional(),
  /** What the controller's own controller report calls for (empty without one). */
  genset_warnings: z.array(z.enum(GENSET_HEALTH_WARNINGS)).optional(),
});
export type HealthStatus = z.infer<typeof HealthStatus>;

const Hours = z.number().positive().max(100_000);
/** Trimmed by the server; the pattern tells a client that a name of spaces alone is empty. */
const ItemName = z.string().trim().min(1).max(100).regex(/\S/, 'must not be blank');
const Months = z.number().int().min(1).max(120);

/** A maintenance item: an interval in engine hours and/or calendar months, at least one. */
export const MaintenanceItemInput = z
  .object({
    name: ItemName,
    interval_hours: Hours.nullable().default(null),
    interval_months: Months.nullable().default(null),
    /** Notify this many engine hours before due (null: no early notice by hours). */
    lead_hours: Hours.nullable().default(null),
    /** Notify this many days before the calendar date (null: no early notice by date). */
    lead_days: z.number().int().min(1).max(365).nullable().default(null),
  })
  .strict()
  .refine((v) => v.interval_hours !== null || v.interval_months !== null, {
    message: 'give interval_hours, interval_months or both',
    path: ['interval_hours'],
  })
  // The refinement, as the API description says it to a generated client: at least one interval.
  .meta({
    anyOf: [
      { required: ['interval_hours'], properties: { interval_hours: { type: 'number' } } },
      { required: ['interval_months'], properties: { interval_months: { type: 'integer' } } },
    ],
  });
export type MaintenanceItemInput = z.infer<typeof MaintenanceItemInput>;

export const MaintenanceItemUpdate = z
  .object({
    name: ItemName,
    interval_hours: Hours.nullable(),
    interval_months: Months.nullable(),
    lead_hours: Hours.nullable(),
    lead_days: z.number().int().min(1).max(365).nullable(),
  })
  .partial()
  .strict()
  // The item keeps at least one interval, judged from the body alone: an interval is cleared only
  // beside a number for the other, so no body is refused for what the stored item holds.
  .refine((v) => !clearsWithoutTheOther(v), {
    message: 'clearing one interval needs the other in the same body (an item keeps at least one)',
    path: ['interval_hours'],
  })
  // The same rule for the API description: nothing cleared, or a number for one of the two.
  .meta({
    anyOf: [
      { properties: { interval_hours: { type: 'number' }, interval_months: { type: 'integer' } } },
      { required: ['interval_hours'], properties: { interval_hours: { type: 'number' } } },
      { required: ['interval_months'], properties: { interval_months: { type: 'integer' } } },
    ],
  });

function clearsWithoutTheOther(v: {
  interval_hours?: number | null;
  interval_months?: number | null;
}): boolean {
  const hours = typeof v.interval_hours === 'number';
  const months = typeof v.interval_months === 'number';
  return (v.interval_hours === null && !months) || (v.interval_months === null && !hours);
}

export const MaintenanceDoneRequest = z
  .object({ note: z.string().max(500).optional() })
  .strict()
  .default({});

// Bounds on the coerced number itself (not behind a pipe), so the API description shows them.
export const MaintenanceIdParam = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });

export const MAINTENANCE_STATUSES = ['ok', 'upcoming', 'due'] as const;

export const MaintenanceItem = z.object({
  id: z.number().int(),
  name: z.string(),
  interval_hours: z.number().nullable(),
  interval_months: z.number().int().nullable(),
  lead_hours: z.number().nullable(),
  lead_days: z.number().int().nullable(),
  last_done_at: UnixSeconds,
  last_done_engine_hours: z.number(),
  due_engine_hours: z.number().nullable(),
  due_at: UnixSeconds.nullable(),
  status: z.enum(MAINTENANCE_STATUSES),
  history: z.array(
    z.object({
      done_at: UnixSeconds,
      engine_hours: z.number(),
      who: z.string(),
      note: z.string().nullable(),
    }),
  ),
});
export type MaintenanceItem = z.infer<typeof MaintenanceItem>;

/** GET /api/exercise/reports: one per exercise run, newest first. */
export const ExerciseReport = z.object({
  run_id: z.number().int().nullable(),
  started_at: UnixSeconds,
  /** null: no running feedback source, so nothing could confirm. */
  confirmed: z.boolean().nullable(),
  confirm_seconds: z.number().int().nullable(),
  planned_minutes: z.number().int().nullable(),
  ran_seconds: z.number().int(),
  full_duration: z.boolean(),
  stop_reason: z.string(),
  passed: z.boolean(),
});
export type ExerciseReport = z.infer<typeof ExerciseReport>;

export const ExerciseReportsQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(500).default(50) })
  .strict();
