import type {
  BootArmingPolicy,
  ExpectedLoad,
  health,
  FuelType,
  HoaPosition,
  OverrideType,
  RelayNodeConnectionStatus,
  StopReason,
  Trigger,
} from '@outpost/contracts';

/** The spec's "persistent controller state", plus the few fields the rules need to survive a restart. */
export interface PersistedState {
  generator_running: boolean;
  run_trigger: Trigger | 'idle';
  /** ms since epoch */
  generator_start_time: number | null;
  current_run_id: number | null;
  slave_relay_armed: boolean;
  automation_armed: boolean;
  /** Since when automation has been disarmed (ms); null while armed, or never recorded (an older state). */
  automation_disarmed_at: number | null;
  manual_disarm_active: boolean;
  slave_connection_status: RelayNodeConnectionStatus;
  missed_heartbeat_count: number;
  slave_physical_safety_engaged: boolean;
  quiet_override_active: boolean;
  /** ms since epoch */
  quiet_override_expires_at: number | null;
  override_type: OverrideType | null;
  override_since: number | null;
  lockout_active: boolean;
  cooldown_until: number | null;
  /** Auto-stop deadline of the current run (ms); persisted so it survives a restart. */
  scheduled_stop_at: number | null;
  scheduled_stop_reason: StopReason | null;
  fuel_reset_at: number | null;
  /** Last time the controller was known alive; bounds the stop time of an orphaned run. */
  last_alive_at: number | null;
  /** The engine-hour meter in ms, as of its last write (HourMeter). */
  engine_ms: number;
  /** Since when the meter counts time not yet in engine_ms; null while the engine is not counted. */
  engine_counting_since: number | null;
  /** The newest health alarm still standing (cleared by a confirmed start or clear-lockout). */
  health_alarm: health.HealthAlarm | null;
}

export const INITIAL_STATE: PersistedState = {
  generator_running: false,
  run_trigger: 'idle',
  generator_start_time: null,
  current_run_id: null,
  slave_relay_armed: false,
  automation_armed: false,
  automation_disarmed_at: null,
  manual_disarm_active: false,
  slave_connection_status: 'unknown',
  missed_heartbeat_count: 0,
  slave_physical_safety_engaged: false,
  quiet_override_active: false,
  quiet_override_expires_at: null,
  override_type: null,
  override_since: null,
  lockout_active: false,
  cooldown_until: null,
  scheduled_stop_at: null,
  scheduled_stop_reason: null,
  fuel_reset_at: null,
  last_alive_at: null,
  engine_ms: 0,
  engine_counting_since: null,
  health_alarm: null,
};

export interface RuntimeLimitSettings {
  runtime_limits_enabled: boolean;
  max_run_minutes: number;
  cooldown_minutes: number;
  lockout_on_max_runtime: boolean;
}

export interface FuelSettings {
  fuel_type: FuelType;
  expected_load: ExpectedLoad;
  gph_at_50: number;
  gph_at_100: number;
}

export interface HealthSettings {
  running_feedback_source: health.FeedbackSource;
  fail_to_start_policy: health.FailToStartPolicy;
}

export interface Settings {
  limits: RuntimeLimitSettings;
  fuel: FuelSettings;
  health: HealthSettings;
  boot_arming_policy: BootArmingPolicy;
  bms_debounce_ms: number;
}

export const DEFAULT_SETTINGS: Settings = {
  limits: {
    runtime_limits_enabled: false,
    max_run_minutes: 480,
    cooldown_minutes: 60,
    lockout_on_max_runtime: true,
  },
  fuel: { fuel_type: 'diesel', expected_load: 50, gph_at_50: 0, gph_at_100: 0 },
  health: { running_feedback_source: 'none', fail_to_start_policy: 'drop_and_lockout' },
  boot_arming_policy: 'fail_safe',
  bms_debounce_ms: 0,
};

/** Who caused a change and from where; every state change is audited with it. */
export interface Actor {
  /** username, or a system source such as `system`, `bms`, `hoa`, `scheduler`, `mqtt`. */
  who: string;
  /** client IP, MQTT client, GPIO pin, … */
  from: string;
}

export const SYSTEM: Actor = { who: 'system', from: 'controller' };

/** Mutable reference so a queued run creation and its later completion agree on the id. */
export interface RunRef {
  id: number | null;
}

export interface NewRun {
  ref: RunRef;
  start_time: number;
  trigger_type: Trigger;
  notes: string | null;
  fuel_type_at_run: FuelType;
  load_at_run: ExpectedLoad;
  gph_at_run: number;
  scheduled_run_id: number | null;
  /** The start condition's value when it started the run (null for other triggers). */
  trigger_value?: number | null;
}

export interface RunClose {
  ref: RunRef;
  stop_time: number;
  duration_seconds: number;
  stop_reason: StopReason;
  estimated_fuel_used: number;
  stop_note: string | null;
  /** The stop condition's value when it ended the run (null for other stops). */
  stop_value?: number | null;
}

/** What an exercise run showed; written with the events that report it. */
export interface ExerciseReportRow {
  run_id: number | null;
  started_at: number;
  confirmed: boolean | null;
  confirm_seconds: number | null;
  planned_seconds: number | null;
  ran_seconds: number;
  full_duration: boolean;
  stop_reason: string;
  passed: boolean;
}

export interface EventDraft {
  event: string;
  data: Record<string, unknown>;
}

export interface AuditDraft {
  action: string;
  actor: Actor;
  details?: Record<string, unknown>;
}

/** One database transaction: state, settings, run records, outbox events and audit entries together. */
export interface CommitBatch {
  /** Tag for logs and tests (`start:state`, `stop:run`, …). */
  label: string;
  state?: PersistedState;
  settings?: Settings;
  /** A run record; its ref carries the id a reserveRunId write took for it. */
  createRun?: NewRun;
  closeRuns?: RunClose[];
  /** Built at commit time so they can carry the id of the run created in the same transaction. */
  events?: (runId: number | null) => EventDraft[];
  audit?: AuditDraft[];
  exerciseReport?: ExerciseReportRow;
  /**
   * Commit without waiting for the disk flush: made durable by the next ordinary commit. Only for
   * a write another commit follows at once (the start's state row, then its run record), so the
   * relay command is not held behind an fsync.
   */
  flushWithNext?: boolean;
  /**
   * Take an id for the run a later write creates, set on this ref when this write commits: the run
   * record then needs no answer from the database before its own write.
   */
  reserveRunId?: RunRef;
}

export interface OpenRun {
  id: number;
  start_time: number;
  trigger_type: Trigger;
  gph_at_run: number | null;
}

/** Persistence port; one call to commit is one transaction. */
export interface ControllerRepository {
  loadState(): Promise<PersistedState | null>;
  loadSettings(): Promise<Settings | null>;
  openRuns(): Promise<OpenRun[]>;
  /** Seconds of every completed run, and gallons of those that stopped after resetAt. */
  runTotals(resetAt: number | null): Promise<{ seconds: number; gallonsSince: number }>;
  /** runId: the reserved id (reserveRunId) or the created run's id (createRun), else null. */
  commit(batch: CommitBatch): Promise<{ runId: number | null }>;
}

/** The link to the relay node: the heartbeat publisher implements it. */
export interface RelayPort {
  /** Commands the relay; implementations publish the intent at once and keep re-sending it as heartbeats. */
  commandRelay(on: boolean): Promise<void>;
  /** Arm or disarm the relay node (part of the same desired state). */
  setArmed(armed: boolean): Promise<void>;
  /** False while a command cannot be delivered over the broker (broker down). */
  available(): boolean;
  /**
   * While available() is false, how a start still reaches the relay: 'rest' (the relay node REST API,
   * RELAYNODE_URL) or 'heartbeat' (the first heartbeat after the broker reconnects), either only within
   * the start's lease. null (or absent): nothing would carry it or end the run if it never arrives,
   * so a start answers 503.
   */
  deferredRoute?(): DeferredRelayRoute | null;
}

export type DeferredRelayRoute = 'rest' | 'heartbeat';

/** Outward notifications of the domain (retained state, outbox kick). */
export interface DomainBus {
  stateChanged(): void;
  eventsQueued(): void;
}

export type { DomainLogger } from '@outpost/runtime/domain-logger';

export type { HoaPosition };

/** When automation counts as disarmed from: now, unless it already was (then its first disarm stands). */
export function disarmedSince(previous: PersistedState, now: number): number {
  return previous.automation_armed ? now : (previous.automation_disarmed_at ?? now);
}
