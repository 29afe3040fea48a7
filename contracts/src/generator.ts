import { z } from 'zod';
import { RowId, TopicId, UnixSeconds, UpdatedAt } from './common.js';
import { ConditionsStatus } from './conditions.js';
import { GensetState } from './genset.js';
import { HEALTH_ALARMS } from './health.js';
import {
  BootArmingPolicy,
  ExpectedLoad,
  FuelType,
  GeneratorStateName,
  HoaPosition,
  NotificationEvent,
  OverrideType,
  RelayNodeConnectionStatus,
  StopReason,
  Trigger,
} from './enums.js';

/** Input bounds of the controller API (issue: duration 1–1440, notes ≤ 500, reason ≤ 200). */
export const LIMITS = {
  durationMinutes: { min: 1, max: 1440 },
  notesMax: 500,
  reasonMax: 200,
  historyLimitMax: 1000,
  statsDaysMax: 3650,
} as const;

/** GET /api/generator/state — the spec's "Generator state" fields, plus extras a client needs. */
export const GeneratorState = z.object({
  running: z.boolean(),
  state: GeneratorStateName,
  current_run_id: z.number().int().nullable(),
  start_time: UnixSeconds.nullable(),
  runtime_seconds: z.number().int().nonnegative(),
  trigger: Trigger.nullable(),
  armed: z.boolean(),
  slave_connected: z.boolean(),
  slave_connection_status: RelayNodeConnectionStatus.optional(),
  slave_physical_safety_engaged: z.boolean().optional(),
  relay_node_relay_on: z.boolean().nullable().optional(),
  failsafe_triggered: z.boolean().optional(),
  missed_heartbeat_count: z.number().int().nonnegative().optional(),
  automation_armed: z.boolean().optional(),
  manual_disarm_active: z.boolean().optional(),
  override: OverrideType.nullable().optional(),
  hoa_position: HoaPosition.optional(),
  quiet_override_active: z.boolean().optional(),
  quiet_override_expires_at: UnixSeconds.nullable().optional(),
  lockout_active: z.boolean().optional(),
  cooldown_active: z.boolean().optional(),
  cooldown_remaining_seconds: z.number().int().nonnegative().optional(),
  bms_signal_active: z.boolean().optional(),
  /** Start conditions, when any is configured: live values, condition states, pending countdowns. */
  conditions: ConditionsStatus.optional(),
  scheduled_stop_at: UnixSeconds.nullable().optional(),
  /** Generator health: null when no feedback source is set or it has not reported. */
  running_feedback: z.boolean().nullable().optional(),
  external_run_active: z.boolean().optional(),
  health_alarm: z.enum(HEALTH_ALARMS).nullable().optional(),
  /** When the relay node reported the current run's relay ON (its lease applied); null until then. */
  relay_confirmed_at: UnixSeconds.nullable().optional(),
  /** While the current run's relay is not confirmed: why (the node's refusal, EPO, not connected …). */
  relay_unconfirmed_reason: z.string().nullable().optional(),
  /**
   * The relay node's clock minus the controller's, seconds (NTP-style, over the bus); null until
   * measured. Nothing depends on it: the lease runs on the node's own clock. Shown to spot a Pi
   * without time.
   */
  relaynode_clock_offset_seconds: z.number().nullable().optional(),
  engine_hours: z.number().nonnegative().optional(),
  maintenance_due: z.boolean().optional(),
  /**
   * The generator's own controller as the relay node last reported it (`relaynode/<id>/genset`);
   * null: no report yet. While `stale` every value is null, which says nothing about the engine.
   */
  genset: GensetState.nullable().optional(),
  updated_at: UpdatedAt.optional(),
});
export type GeneratorState = z.infer<typeof GeneratorState>;

export const StartRequest = z
  .object({
    duration_minutes: z
      .number()
      .int()
      .min(LIMITS.durationMinutes.min)
      .max(LIMITS.durationMinutes.max)
      .optional(),
    notes: z.string().max(LIMITS.notesMax).optional(),
  })
  .strict();
export type StartRequest = z.infer<typeof StartRequest>;

export const StartResponse = z.object({
  success: z.literal(true),
  /** null only while the database is catching up on a queued write. */
  run_id: z.number().int().nullable(),
  start_time: UnixSeconds,
  trigger: Trigger,
  scheduled_stop_at: UnixSeconds.nullable(),
  message: z.string(),
  /**
   * true: the relay node reported the relay ON under this start's lease before the answer left. false:
   * not yet (the node is slow, cut off or refusing, or the broker is unreachable and the ON goes over
   * the relay node REST API or with the first heartbeat after the broker reconnects, only within the
   * start's lease); `message` says which.
   */
  relay_confirmed: z.boolean(),
  /**
   * confirmed: the relay node reported the relay ON under this start's lease. pending: not yet (the
   * state's relay_confirmed_at says when it does; relay_not_confirmed is raised if it does not
   * within 2 heartbeat intervals + 5 s).
   */
  relay_status: z.enum(['confirmed', 'pending']),
});

export const StopRequest = z
  .object({
    reason: z.string().max(LIMITS.reasonMax).optional(),
  })
  .strict();
export type StopRequest = z.infer<typeof StopRequest>;

export const StopResponse = z.object({
  success: z.literal(true),
  run_id: z.number().int().nullable(),
  duration_seconds: z.number().int().nonnegative().nullable(),
  stop_reason: StopReason,
  message: z.string(),
});

export const RunRecord = z.object({
  id: z.number().int(),
  start_time: UnixSeconds,
  stop_time: UnixSeconds.nullable(),
  duration_seconds: z.number().int().nonnegative().nullable(),
  trigger_type: Trigger,
  stop_reason: StopReason.nullable(),
  notes: z.string().nullable(),
  /** The free-text reason given with a stop, or what stopped it. */
  stop_note: z.string().nullable().optional(),
  fuel_type_at_run: FuelType.nullable(),
  load_at_run: z.number().int().nullable(),
  estimated_fuel_used: z.number().nonnegative().nullable(),
  scheduled_run_id: z.number().int().nullable(),
  /** Start conditions: the condition's value when it started the run (the trigger names it). */
  trigger_value: z.number().nullable().optional(),
  /** Start conditions: the value when the stop condition ended the run (the stop reason names it). */
  stop_value: z.number().nullable().optional(),
});
export type RunRecord = z.infer<typeof RunRecord>;

export const HistoryQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(LIMITS.historyLimitMax).default(50),
    trigger_type: Trigger.optional(),
  })
  .strict();
export type HistoryQuery = z.infer<typeof HistoryQuery>;

/** The spec's "list of run records"; how many match the filter in all rides in HISTORY_TOTAL_HEADER. */
export const HistoryResponse = z.array(RunRecord);
export const HISTORY_TOTAL_HEADER = 'X-Total-Count';

export const StatsQuery = z
  .object({ days: z.coerce.number().int().min(1).max(LIMITS.statsDaysMax).default(30) })
  .strict();

export const StatsResponse = z.object({
  period_days: z.number().int(),
  total_runs: z.number().int(),
  total_runtime_seconds: z.number().int(),
  total_runtime_hours: z.number(),
  average_runtime_seconds: z.number().int(),
  runs_by_trigger: z.record(z.string(), z.number().int()),
  runtime_by_trigger: z.record(z.string(), z.number().int()),
});
export type StatsResponse = z.infer<typeof StatsResponse>;

export const FuelSettings = z
  .object({
    fuel_type: FuelType,
    expected_load: ExpectedLoad,
    gph_at_50: z.number().min(0).max(1000),
    gph_at_100: z.number().min(0).max(1000),
  })
  .strict();
export type FuelSettings = z.infer<typeof FuelSettings>;

export const FuelUsageResponse = z.object({
  total_gallons: z.number().nonnegative(),
  total_runtime_seconds: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  since: UnixSeconds.nullable(),
  settings: FuelSettings,
});

export const RuntimeLimitSettings = z
  .object({
    runtime_limits_enabled: z.boolean(),
    max_run_minutes: z.number().int().min(1).max(10080),
    cooldown_minutes: z.number().int().min(0).max(10080),
    lockout_on_max_runtime: z.boolean(),
  })
  .strict();
export type RuntimeLimitSettings = z.infer<typeof RuntimeLimitSettings>;

export const RuntimeLimitsResponse = RuntimeLimitSettings.extend({
  lockout_active: z.boolean(),
  cooldown_active: z.boolean(),
  cooldown_remaining_seconds: z.number().int().nonnegative(),
});

export const ClearLockoutRequest = z
  .object({ acknowledge: z.literal(true, { error: 'must be true to clear the lockout' }) })
  .strict();

export const RuntimeLimitSettingsUpdate = RuntimeLimitSettings.partial().strict();
export const FuelSettingsUpdate = FuelSettings.partial().strict();

/** Generic acknowledgement of a state-changing call. */
export const ActionResponse = z.object({ success: z.boolean(), message: z.string() }).loose();

export const OverrideEnableRequest = z.object({ override_type: OverrideType }).strict();

export const OverrideStatus = z.object({
  active: z.boolean(),
  override_type: OverrideType.nullable(),
  since: UnixSeconds.nullable(),
  quiet_override_active: z.boolean().optional(),
  quiet_override_expires_at: UnixSeconds.nullable().optional(),
  hoa_position: HoaPosition.optional(),
});

export const QuietOverrideRequest = z.object({ minutes: z.number().int().min(1).max(1440) }).strict();

export const ControllerSettings = z
  .object({ boot_arming_policy: BootArmingPolicy, bms_debounce_ms: z.number().int().min(0).max(60000) })
  .partial()
  .strict();

/** HH:MM, 24 h. */
export const ClockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM (24 h)');

/** days_of_week follow the cron convention: 0 = Sunday … 6 = Saturday. */
export const ScheduleInput = z
  .object({
    name: z.string().min(1).max(100),
    days_of_week: z.array(z.number().int().min(0).max(6)).min(1).max(7),
    start_time: ClockTime,
    duration_minutes: z.number().int().min(LIMITS.durationMinutes.min).max(LIMITS.durationMinutes.max),
    enabled: z.boolean().default(true),
  })
  .strict();
export type ScheduleInput = z.infer<typeof ScheduleInput>;

export const ScheduleUpdate = z
  .object({
    name: z.string().min(1).max(100),
    days_of_week: z.array(z.number().int().min(0).max(6)).min(1).max(7),
    start_time: ClockTime,
    duration_minutes: z.number().int().min(LIMITS.durationMinutes.min).max(LIMITS.durationMinutes.max),
    enabled: z.boolean(),
  })
  .partial()
  .strict();

export const Schedule = z.object({
  id: z.number().int(),
  name: z.string(),
  days_of_week: z.array(z.number().int()),
  start_time: z.string(),
  duration_minutes: z.number().int(),
  enabled: z.boolean(),
  next_execution: UnixSeconds.nullable(),
  last_run_at: UnixSeconds.nullable(),
  last_result: z.string().nullable(),
});
export type Schedule = z.infer<typeof Schedule>;

/**
 * Exercise until the battery is full (the GX's periodic run "Run until battery is fully charged"): the
 * run goes on past duration_minutes while the soc start-condition source reports a fresh value below
 * battery_full_soc, up to max_duration_minutes from its start. A stale or missing soc ends it at
 * duration_minutes.
 */
const ExerciseUntilFullFields = {
  until_battery_full: z.boolean(),
  battery_full_soc: z.number().min(1).max(100),
  max_duration_minutes: z
    .number()
    .int()
    .min(LIMITS.durationMinutes.min)
    .max(LIMITS.durationMinutes.max)
    .describe(
      'The longest an exercise run may last with until_battery_full, from its start. One shorter than duration_minutes counts as duration_minutes: the run never ends before its duration.',
    ),
};

export const EXERCISE_UNTIL_FULL_DEFAULTS = {
  until_battery_full: false,
  battery_full_soc: 100,
  max_duration_minutes: 240,
} as const;

const exerciseFields = {
  enabled: z.boolean(),
  frequency_days: z.number().int().min(1).max(365),
  start_time: ClockTime,
  duration_minutes: z.number().int().min(LIMITS.durationMinutes.min).max(LIMITS.durationMinutes.max),
};

export const ExerciseSettings = z
  .object({
    ...exerciseFields,
    until_battery_full: ExerciseUntilFullFields.until_battery_full.optional(),
    battery_full_soc: ExerciseUntilFullFields.battery_full_soc.optional(),
    max_duration_minutes: ExerciseUntilFullFields.max_duration_minutes.optional(),
  })
  .strict();

export const ExerciseSettingsUpdate = z
  .object({ ...exerciseFields, ...ExerciseUntilFullFields })
  .partial()
  .strict();

/**
 * The longest an exercise run lasts with until_battery_full: max_duration_minutes, never less than
 * duration_minutes. Not a refusal: the two are set apart (a PUT may carry either), and a client the
 * document allows to send one must not be refused for the other's stored value.
 */
export const exerciseRunCap = (s: { duration_minutes: number; max_duration_minutes: number }): number =>
  Math.max(s.max_duration_minutes, s.duration_minutes);

export const ExerciseStatus = z.object({
  enabled: z.boolean(),
  frequency_days: z.number().int(),
  start_time: z.string(),
  duration_minutes: z.number().int(),
  until_battery_full: z.boolean(),
  battery_full_soc: z.number(),
  max_duration_minutes: z.number().int(),
  next_exercise_date: UnixSeconds.nullable(),
  last_run_at: UnixSeconds.nullable(),
  last_result: z.string().nullable(),
});

export const WebhookInput = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2000),
    secret: z.string().min(8).max(200).optional(),
    events: z.array(z.string().max(100)).max(50).default(['*']),
    enabled: z.boolean().default(true),
  })
  .strict();

export const WebhookUpdate = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2000),
    secret: z.string().min(8).max(200),
    events: z.array(z.string().max(100)).max(50),
    enabled: z.boolean(),
  })
  .partial()
  .strict();

export const Webhook = z.object({
  id: z.number().int(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  /** Shown once, when the webhook is created without a secret of its own. */
  secret: z.string().optional(),
  created_at: UnixSeconds,
});

export const LoginRequest = z
  .object({ username: z.string().min(1).max(100), password: z.string().min(1).max(200) })
  .strict();
export const LoginResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int().positive(),
});

export const PasswordChangeRequest = z
  .object({ current_password: z.string().min(1).max(200), new_password: z.string().min(10).max(200) })
  .strict();

/** Dev-mode bodies. */
export const DevBmsSignalRequest = z.object({ active: z.boolean() }).strict();
export const DevHoaRequest = z.object({ position: HoaPosition }).strict();

/** MQTT `controller/<id>/set`: automation commands, same gates as REST. */
export const ControllerSetCommand = z.discriminatedUnion('command', [
  z
    .object({
      command: z.literal('start'),
      duration_minutes: StartRequest.shape.duration_minutes,
      notes: StartRequest.shape.notes,
    })
    .strict(),
  z.object({ command: z.literal('stop'), reason: StopRequest.shape.reason }).strict(),
  z.object({ command: z.literal('arm') }).strict(),
  z.object({ command: z.literal('disarm') }).strict(),
  z.object({ command: z.literal('override'), override_type: OverrideType.nullable() }).strict(),
  // As over REST: clearing a lockout is an acknowledgement, said in the command itself.
  z.object({ command: z.literal('clear_lockout'), acknowledge: z.literal(true) }).strict(),
  // Service done (Home Assistant's button): the item named, or every item that is due now.
  z.object({ command: z.literal('maintenance_done'), item_id: RowId.optional() }).strict(),
]);
export type ControllerSetCommand = z.infer<typeof ControllerSetCommand>;

/** The set commands by name, overrides by their type: what AUTOMATION_COMMANDS lists. */
export const AutomationCommand = z.enum([
  'start',
  'stop',
  'arm',
  'disarm',
  'override_force_run',
  'override_force_stop',
  'override_disable',
  'clear_lockout',
  'maintenance_done',
]);
export type AutomationCommand = z.infer<typeof AutomationCommand>;

/**
 * What an automation account may do unless AUTOMATION_COMMANDS says otherwise: start (which still
 * needs the relay armed), stop, disarm, force_stop and recording a service done; never arm, force_run,
 * lift an override or clear a lockout. So Home Assistant cannot start a disarmed generator, nor undo what a person set.
 */
export const DEFAULT_AUTOMATION_COMMANDS: readonly AutomationCommand[] = [
  'start',
  'stop',
  'disarm',
  'override_force_stop',
  'maintenance_done',
];

export function automationCommandOf(cmd: ControllerSetCommand): AutomationCommand {
  if (cmd.command !== 'override') return cmd.command;
  return cmd.override_type === null ? 'override_disable' : `override_${cmd.override_type}`;
}

/** MQTT `controller/<id>/event/<name>`: notification and webhook events. */
export const ControllerEvent = z.object({
  event: z.string().min(1).max(100),
  event_id: z.string().min(1).max(64),
  timestamp: UnixSeconds,
  controller_id: TopicId,
  data: z.record(z.string(), z.unknown()),
});
export type ControllerEvent = z.infer<typeof ControllerEvent>;

export const SystemNotificationEventParam = NotificationEvent;

/**
 * Retained `controller/<id>/stats`: what Home Assistant's runtime, run-hours, fuel and engine-hour
 * sensors read.
 */
export const ControllerStats = z.object({
  runtime_seconds: z.number().int().nonnegative(),
  total_run_hours: z.number().nonnegative(),
  fuel_used_gallons: z.number().nonnegative(),
  engine_hours: z.number().nonnegative().optional(),
});
export type ControllerStats = z.infer<typeof ControllerStats>;
