import type { BootArmingPolicy, StopReason, Trigger } from '@outpost/contracts';
import type { Clock } from './clock.js';
import type {
  Actor,
  ControllerRepository,
  DeferredRelayRoute,
  DomainBus,
  DomainLogger,
  RelayPort,
} from './types.js';

export interface ControllerConfig {
  /** BOOT_ARMING_POLICY from the environment; when unset the stored setting applies. */
  bootArmingPolicy?: BootArmingPolicy;
  hoaBootDelaySeconds: number;
  /** Retry period of queued database writes. */
  dbRetryMs?: number;
  /** How long a stop waits for the database before commanding the relay anyway. */
  dbWaitMs?: number;
  /** Period of the last-alive stamp that bounds an orphaned run; it also writes the hour meter. */
  aliveStampMs?: number;
  /** DISARMED_REMINDER_HOURS: remind of disarmed automation or a left-on override (0 or unset: off). */
  disarmedReminderHours?: number;
  /** START_CONFIRM_SECONDS: how long a start may go without running feedback (default 60). */
  startConfirmSeconds?: number;
  /**
   * How long a run's relay ON may go unconfirmed by the relay node before relay_not_confirmed
   * (2 heartbeat intervals + 5 s); unset: no confirmation is expected (no relay node link).
   */
  relayConfirmMs?: number;
  /** TZ: the zone of the start conditions' quiet hours (default UTC). */
  timezone?: string;
}

export interface ControllerDeps {
  clock: Clock;
  repo: ControllerRepository;
  relay: RelayPort;
  bus: DomainBus;
  logger: DomainLogger;
  config: ControllerConfig;
}

export interface StartCommand {
  trigger: Trigger;
  actor: Actor;
  duration_minutes?: number;
  notes?: string;
  scheduled_run_id?: number | null;
  hoaRun?: boolean;
  /** The value of the start condition that asked for this run (run history). */
  trigger_value?: number | null;
}

/** How a start's relay ON left: taken by the broker, or on its way by a deferred route. */
export type RelayDelivery = 'broker' | DeferredRelayRoute;

export interface StartOutcome {
  run_id: number | null;
  start_time: number;
  trigger: Trigger;
  scheduled_stop_at: number | null;
  relay: RelayDelivery;
}

export interface StopOutcome {
  run_id: number | null;
  duration_seconds: number | null;
  stop_reason: StopReason;
  was_running: boolean;
}

export interface BootReport {
  boot_arming_policy: BootArmingPolicy;
  relay_disarmed_by_policy: boolean;
  was_running: boolean;
  orphan_runs_closed: number[];
}
