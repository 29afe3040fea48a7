import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgSchema,
  serial,
  text,
} from 'drizzle-orm/pg-core';

/** Every table of the controller lives in its own PostgreSQL schema. */
export const controller = pgSchema('controller');

/**
 * The relay lease's epoch: one value per controller start, never handed out twice and never lower
 * than before, even after a crash (a restored backup is caught by the relay node's order instead).
 */
export const leaseEpoch = controller.sequence('lease_epoch', { startWith: 1, increment: 1 });

const ms = (name: string) => bigint(name, { mode: 'number' });

/** The relay nodes' report-signing keys, pinned at first contact (a node re-installed needs a forget). */
export const relaynodeKeys = controller.table('relaynode_keys', {
  relaynode_id: text('relaynode_id').primaryKey(),
  public_key: text('public_key').notNull(),
  pinned_at: ms('pinned_at').notNull(),
});

export const users = controller.table('users', {
  id: serial('id').primaryKey(),
  username: text('username').notNull().unique(),
  password_hash: text('password_hash').notNull(),
  created_at: ms('created_at').notNull(),
  password_changed_at: ms('password_changed_at').notNull(),
});

export const revokedTokens = controller.table('revoked_tokens', {
  jti: text('jti').primaryKey(),
  expires_at: ms('expires_at').notNull(),
});

/** The spec's persistent controller state: one row, id 1. */
export const controllerState = controller.table('controller_state', {
  id: integer('id').primaryKey(),
  generator_running: boolean('generator_running').notNull(),
  run_trigger: text('run_trigger').notNull(),
  generator_start_time: ms('generator_start_time'),
  current_run_id: integer('current_run_id'),
  slave_relay_armed: boolean('slave_relay_armed').notNull(),
  automation_armed: boolean('automation_armed').notNull(),
  manual_disarm_active: boolean('manual_disarm_active').notNull(),
  slave_connection_status: text('slave_connection_status').notNull(),
  missed_heartbeat_count: integer('missed_heartbeat_count').notNull(),
  slave_physical_safety_engaged: boolean('slave_physical_safety_engaged').notNull(),
  quiet_override_active: boolean('quiet_override_active').notNull(),
  quiet_override_expires_at: ms('quiet_override_expires_at'),
  override_type: text('override_type'),
  override_since: ms('override_since'),
  lockout_active: boolean('lockout_active').notNull(),
  cooldown_until: ms('cooldown_until'),
  scheduled_stop_at: ms('scheduled_stop_at'),
  scheduled_stop_reason: text('scheduled_stop_reason'),
  fuel_reset_at: ms('fuel_reset_at'),
  last_alive_at: ms('last_alive_at'),
  engine_ms: ms('engine_ms').notNull().default(0),
  engine_counting_since: ms('engine_counting_since'),
  health_alarm: text('health_alarm'),
  automation_disarmed_at: ms('automation_disarmed_at'),
  updated_at: ms('updated_at').notNull(),
});

/** Runtime-limit, fuel and health settings, the boot arming policy and the input debounce: one row, id 1. */
export const settings = controller.table('settings', {
  id: integer('id').primaryKey(),
  runtime_limits_enabled: boolean('runtime_limits_enabled').notNull(),
  max_run_minutes: integer('max_run_minutes').notNull(),
  cooldown_minutes: integer('cooldown_minutes').notNull(),
  lockout_on_max_runtime: boolean('lockout_on_max_runtime').notNull(),
  fuel_type: text('fuel_type').notNull(),
  expected_load: integer('expected_load').notNull(),
  gph_at_50: doublePrecision('gph_at_50').notNull(),
  gph_at_100: doublePrecision('gph_at_100').notNull(),
  boot_arming_policy: text('boot_arming_policy').notNull(),
  bms_debounce_ms: integer('bms_debounce_ms').notNull(),
  running_feedback_source: text('running_feedback_source').notNull().default('none'),
  fail_to_start_policy: text('fail_to_start_policy').notNull().default('drop_and_lockout'),
});

export const runs = controller.table(
  'runs',
  {
    id: serial('id').primaryKey(),
    start_time: ms('start_time').notNull(),
    stop_time: ms('stop_time'),
    duration_seconds: integer('duration_seconds'),
    trigger_type: text('trigger_type').notNull(),
    stop_reason: text('stop_reason'),
    notes: text('notes'),
    stop_note: text('stop_note'),
    fuel_type_at_run: text('fuel_type_at_run'),
    load_at_run: integer('load_at_run'),
    gph_at_run: doublePrecision('gph_at_run'),
    estimated_fuel_used: doublePrecision('estimated_fuel_used'),
    scheduled_run_id: integer('scheduled_run_id'),
    /** Start conditions: the value that started the run and the one that stopped it. */
    trigger_value: doublePrecision('trigger_value'),
    stop_value: doublePrecision('stop_value'),
  },
  (t) => [
    index('runs_start_time_idx').on(t.start_time),
    index('runs_open_idx').on(t.stop_time).where(sql`${t.stop_time} is null`),
  ],
);

export const schedules = controller.table('schedules', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  days_of_week: jsonb('days_of_week').$type<number[]>().notNull(),
  start_time: text('start_time').notNull(),
  duration_minutes: integer('duration_minutes').notNull(),
  enabled: boolean('enabled').notNull(),
  last_run_at: ms('last_run_at'),
  last_result: text('last_result'),
  created_at: ms('created_at').notNull(),
  updated_at: ms('updated_at').notNull(),
});

export const exerciseSchedule = controller.table('exercise_schedule', {
  id: integer('id').primaryKey(),
  enabled: boolean('enabled').notNull(),
  frequency_days: integer('frequency_days').notNull(),
  start_time: text('start_time').notNull(),
  duration_minutes: integer('duration_minutes').notNull(),
  until_battery_full: boolean('until_battery_full').notNull().default(false),
  battery_full_soc: doublePrecision('battery_full_soc').notNull().default(100),
  max_duration_minutes: integer('max_duration_minutes').notNull().default(240),
  next_exercise_at: ms('next_exercise_at'),
  last_run_at: ms('last_run_at'),
  last_result: text('last_result'),
});

export const webhooks = controller.table('webhooks', {
  id: serial('id').primaryKey(),
  url: text('url').notNull(),
  secret: text('secret').notNull(),
  events: jsonb('events').$type<string[]>().notNull(),
  enabled: boolean('enabled').notNull(),
  created_at: ms('created_at').notNull(),
  updated_at: ms('updated_at').notNull(),
});

export const webhookDeliveries = controller.table(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    webhook_id: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    outbox_id: bigint('outbox_id', { mode: 'number' }).notNull(),
    event: text('event').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull(),
    next_attempt_at: ms('next_attempt_at'),
    last_status_code: integer('last_status_code'),
    last_error: text('last_error'),
    delivered_at: ms('delivered_at'),
    created_at: ms('created_at').notNull(),
  },
  (t) => [index('webhook_deliveries_due_idx').on(t.status, t.next_attempt_at)],
);

/** Events written in the same transaction as the state change, published from here. */
export const outbox = controller.table(
  'outbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    event_id: text('event_id').notNull().unique(),
    event: text('event').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    created_at: ms('created_at').notNull(),
    published_at: ms('published_at'),
    fanned_out_at: ms('fanned_out_at'),
  },
  (t) => [index('outbox_unpublished_idx').on(t.id).where(sql`${t.published_at} is null`)],
);

export const auditLog = controller.table(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: ms('at').notNull(),
    who: text('who').notNull(),
    source: text('source').notNull(),
    action: text('action').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>(),
  },
  (t) => [index('audit_log_at_idx').on(t.at)],
);

/** Service reminders: an interval in engine hours and/or calendar months, and the last time done. */
export const maintenanceItems = controller.table('maintenance_items', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  interval_hours: doublePrecision('interval_hours'),
  interval_months: integer('interval_months'),
  lead_hours: doublePrecision('lead_hours'),
  lead_days: integer('lead_days'),
  last_done_at: ms('last_done_at').notNull(),
  last_done_engine_ms: ms('last_done_engine_ms').notNull(),
  /** This cycle's notices went out (reset when the item is done or its intervals change). */
  upcoming_notified: boolean('upcoming_notified').notNull().default(false),
  due_notified: boolean('due_notified').notNull().default(false),
  created_at: ms('created_at').notNull(),
  updated_at: ms('updated_at').notNull(),
});

/** Every time an item was done; kept when the item is deleted, with the name it had. */
export const maintenanceHistory = controller.table(
  'maintenance_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    item_id: integer('item_id').notNull(),
    item_name: text('item_name').notNull(),
    done_at: ms('done_at').notNull(),
    engine_ms: ms('engine_ms').notNull(),
    who: text('who').notNull(),
    source: text('source').notNull(),
    note: text('note'),
  },
  (t) => [index('maintenance_history_item_idx').on(t.item_id, t.done_at)],
);

/** One per exercise run: did the running feedback confirm it, how fast, did it run its full duration. */
export const exerciseReports = controller.table(
  'exercise_reports',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    run_id: integer('run_id'),
    started_at: ms('started_at').notNull(),
    /** null: no running feedback source, so nothing could confirm the start. */
    confirmed: boolean('confirmed'),
    confirm_seconds: integer('confirm_seconds'),
    planned_seconds: integer('planned_seconds'),
    ran_seconds: integer('ran_seconds').notNull(),
    full_duration: boolean('full_duration').notNull(),
    stop_reason: text('stop_reason').notNull(),
    passed: boolean('passed').notNull(),
  },
  (t) => [index('exercise_reports_started_idx').on(t.started_at)],
);

/** The start conditions' configuration (one row): sources, conditions, quiet hours, minimum run. */
export const startConditions = controller.table('start_conditions', {
  id: integer('id').primaryKey(),
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  updated_at: ms('updated_at').notNull(),
});
