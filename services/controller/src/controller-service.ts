import { checkOutboundUrl, outboundPolicy, urlPolicyRefusal } from '@outpost/runtime';
import { AuthService } from './auth/auth-service.js';
import { AuditLog } from './db/audit-log.js';
import { AuthStore } from './db/auth-store.js';
import type { Database } from './db/connection.js';
import { SqlControllerRepository } from './db/controller-repo.js';
import { OutboxStore } from './db/outbox-store.js';
import { RunsReadModel } from './db/runs-read-model.js';
import { ExerciseReportsReadModel } from './db/exercise-reports-read-model.js';
import { SqlMaintenanceStore } from './db/maintenance-store.js';
import { SqlScheduleStore } from './db/schedule-store.js';
import type { Clock } from './domain/clock.js';
import { GeneratorController } from './domain/generator-controller.js';
import { MaintenanceReminders } from './domain/maintenance-reminders.js';
import { ScheduleRunner } from './domain/schedule-runner.js';
import type { DomainLogger, RelayPort } from './domain/types.js';
import type { GpioInputPort } from './inputs/gpio-port.js';
import { InputBridge } from './inputs/inputs.js';
import type { MockGpio } from './inputs/mock-gpio.js';
import { type EventSink, OutboxDispatcher } from './outbox/dispatcher.js';
import { MaintenanceService } from './maintenance-service.js';
import { ConditionsService } from './conditions-service.js';
import { SqlConditionsStore } from './db/conditions-store.js';
import { PendingMarks } from './outbox/pending-marks.js';

export interface ServiceConfig {
  controllerId: string;
  timezone: string;
  jwtSecret: string;
  tokenTtlSeconds: number;
  hoaBootDelaySeconds: number;
  hoaEnabled: boolean;
  bootArmingPolicy?: 'fail_safe' | 'preserve_state';
  heartbeatIntervalSeconds: number;
  version: string;
  /** MQTT_TOPIC_PREFIX (default `outpost`): start-condition sources may not read under it. */
  topicPrefix?: string;
  /** OUTBOUND_ALLOWED_NETWORKS: the private and loopback ranges webhooks may reach. */
  outboundAllowedNetworks?: string | undefined;
  /** DISARMED_REMINDER_HOURS (0 or unset: no reminders). */
  disarmedReminderHours?: number;
  /** START_CONFIRM_SECONDS (default 60). */
  startConfirmSeconds?: number;
  /** HOUR_METER_WRITE_SECONDS (default 60): how often the engine-hour meter is written. */
  hourMeterWriteSeconds?: number;
  /** RUNNING_FEEDBACK_GPIO_PIN is set (mock GPIO always has the line). */
  feedbackPinWired?: boolean;
  /** RUNNING_FEEDBACK_DEBOUNCE_MS (default 1000). */
  feedbackDebounceMs?: number;
  /**
   * A relay node confirms each run's relay ON (the MQTT lease link is attached): a run it does not
   * confirm within 2 heartbeat intervals + 5 s raises relay_not_confirmed.
   */
  relayConfirms?: boolean;
  /** How long a start's answer waits for the relay node's confirmation, ms (0: it does not wait). */
  startConfirmWaitMs?: number;
}

export interface ServiceOptions {
  database: Database;
  clock: Clock;
  logger: DomainLogger;
  config: ServiceConfig;
  relay: RelayPort;
  gpio: GpioInputPort;
  eventSink?: EventSink | null;
  /** Called whenever the generator state changed (retained state publisher). */
  onStateChanged?: () => void;
  outboxSweepMs?: number;
  /** How long stamps of published events wait for a commit to carry them before their own write. */
  outboxStampDelayMs?: number;
  /** Called with the state machine before it boots (the heartbeat reads its intent). */
  onController?: (controller: GeneratorController) => void;
}

export type ControllerService = Awaited<ReturnType<typeof createControllerService>>;

/** Wires the domain to the database, the outbox, the schedules and the inputs, and boots it. */
export async function createControllerService(opts: ServiceOptions) {
  const { database, clock, logger, config } = opts;
  const db = database.db;
  const outboxStore = new OutboxStore(db, database);
  const marks = new PendingMarks(
    (groups) => outboxStore.stampSent(groups),
    clock,
    opts.outboxStampDelayMs,
    (err) => logger.warn({ err }, 'outbox stamps not written; will retry'),
  );
  const policy = outboundPolicy(config.outboundAllowedNetworks);
  const outbound = (url: string) => checkOutboundUrl(url, policy);
  const dispatcher = new OutboxDispatcher({
    outbound,
    store: outboxStore,
    marks,
    sink: opts.eventSink ?? null,
    clock,
    logger,
    controllerId: config.controllerId,
    sweepMs: opts.outboxSweepMs,
  });
  const stateListeners: (() => void)[] = opts.onStateChanged ? [opts.onStateChanged] : [];
  const controller = new GeneratorController({
    clock,
    repo: new SqlControllerRepository(database, clock, (rows) => dispatcher.committed(rows), marks),
    relay: opts.relay,
    bus: {
      stateChanged: () => {
        for (const fn of stateListeners) fn();
      },
      eventsQueued: () => void dispatcher.kick(),
    },
    logger,
    config: {
      bootArmingPolicy: config.bootArmingPolicy,
      hoaBootDelaySeconds: config.hoaBootDelaySeconds,
      startConfirmSeconds: config.startConfirmSeconds,
      ...(config.relayConfirms ? { relayConfirmMs: (2 * config.heartbeatIntervalSeconds + 5) * 1000 } : {}),
      disarmedReminderHours: config.disarmedReminderHours,
      aliveStampMs: (config.hourMeterWriteSeconds ?? 60) * 1000,
      timezone: config.timezone,
    },
  });
  opts.onController?.(controller);
  const authStore = new AuthStore(db);
  const auth = new AuthService(authStore, clock, config.jwtSecret, config.tokenTtlSeconds);
  const schedules = new SqlScheduleStore(db);
  const scheduler = new ScheduleRunner({
    clock,
    store: schedules,
    controller,
    logger,
    timezone: config.timezone,
  });
  const maintenanceStore = new SqlMaintenanceStore(db);
  const reminders = new MaintenanceReminders({
    clock,
    store: maintenanceStore,
    controller,
    logger,
    timezone: config.timezone,
  });
  const maintenance = new MaintenanceService({
    store: maintenanceStore,
    reminders,
    controller,
    clock,
    timezone: config.timezone,
  });
  const inputs = new InputBridge(opts.gpio, controller, {
    hoaEnabled: config.hoaEnabled,
    logger,
    clock,
    feedbackWired: opts.gpio.mode === 'mock' || config.feedbackPinWired === true,
    feedbackDebounceMs: config.feedbackDebounceMs ?? 1000,
  });

  const audit = new AuditLog(db);
  const conditions = new ConditionsService({
    store: new SqlConditionsStore(db),
    controller,
    clock,
    audit,
    ...(config.topicPrefix !== undefined ? { topicPrefix: config.topicPrefix } : {}),
    outboundRefusal: (url) => urlPolicyRefusal(url, policy),
  });

  await auth.init();
  await controller.boot();
  await conditions.load();
  await inputs.start();
  await scheduler.reload();
  await reminders.start();
  dispatcher.start();

  return {
    config,
    clock,
    logger,
    /** Operator actions the gateway records and lists. */
    audit,
    /** Start conditions: configuration, readings, live status, chart samples. */
    conditions,
    /** Run history, statistics and fuel for the API. */
    runs: new RunsReadModel(db),
    controller,
    auth,
    schedules,
    scheduler,
    /** What each exercise run showed (GET /api/exercise/reports). */
    exerciseReports: new ExerciseReportsReadModel(db),
    /** Service reminders: items, due dates, done records. */
    maintenance,
    reminders,
    outbox: outboxStore,
    dispatcher,
    /** Why a webhook URL may not be reached (outbound policy), or null. */
    outbound,
    /** The policy's refusal of a webhook URL, naming the address, or null: asked when one is set. */
    outboundRefusal: (url: string) => urlPolicyRefusal(url, policy),
    inputs,
    mockGpio: opts.gpio.mode === 'mock' ? (opts.gpio as MockGpio) : null,
    onStateChanged(fn: () => void) {
      stateListeners.push(fn);
    },
    async close() {
      scheduler.stop();
      reminders.stop();
      inputs.stop();
      await dispatcher.flushMarks().catch(() => undefined);
      dispatcher.stop();
      await controller.close();
      await opts.gpio.close();
    },
  };
}
