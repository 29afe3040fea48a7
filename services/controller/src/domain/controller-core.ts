import type {
  BootArmingPolicy,
  GeneratorStateName,
  generator,
  HoaPosition,
  StopReason,
  Trigger,
} from '@outpost/contracts';
import { bootReset } from './boot-reset.js';
import { type Clock, Serial, TimerSlot } from './clock.js';
import { DomainError, REFUSAL_MESSAGES } from './errors.js';
import { startedEvents, stoppedEvents, systemEvent } from './events.js';
import { estimateFuel, rateFor } from './fuel.js';
import { closeOrphans } from './orphans.js';
import { stateView } from './state-view.js';
import { checkStart, type Refusal } from './gates.js';
import { afterMaxRuntime, maxRuntimeDeadline } from './limits.js';
import { nextPhase, type PhaseEvent } from './transitions.js';
import {
  type Actor,
  type AuditDraft,
  type CommitBatch,
  type ControllerRepository,
  DEFAULT_SETTINGS,
  type DeferredRelayRoute,
  type DomainBus,
  type DomainLogger,
  INITIAL_STATE,
  type PersistedState,
  type RelayPort,
  type RunRef,
  type Settings,
  SYSTEM,
} from './types.js';
import { WriteQueue } from './write-queue.js';

export interface ControllerConfig {
  /** BOOT_ARMING_POLICY from the environment; when unset the stored setting applies. */
  bootArmingPolicy?: BootArmingPolicy;
  hoaBootDelaySeconds: number;
  /** Retry period of queued database writes. */
  dbRetryMs?: number;
  /** How long a stop waits for the database before commanding the relay anyway. */
  dbWaitMs?: number;
  /** Period of the last-alive stamp that bounds an orphaned run. */
  aliveStampMs?: number;
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

/** Runs this process has finished, and the figures of the newest one (readers keep totals with them). */
export interface FinishedRuns {
  count: number;
  last: { stop_time: number; duration_seconds: number; fuel_gallons: number } | null;
}

export interface BootReport {
  boot_arming_policy: BootArmingPolicy;
  relay_disarmed_by_policy: boolean;
  was_running: boolean;
  orphan_runs_closed: number[];
}

/** Start and stop sequences, arming, runtime limits and the boot reset. */
export class GeneratorCore {
  protected state: PersistedState = { ...INITIAL_STATE };
  protected settings: Settings = structuredClone(DEFAULT_SETTINGS);
  protected phase: GeneratorStateName = 'idle';
  protected hoa: HoaPosition = 'auto';
  protected bmsActive = false;
  /** The selector at Run holds the generator on; limits and the input signal cannot stop it. */
  protected hoaHold = false;
  protected bootAt = 0;
  /**
   * Every restart sees the relay node connect again. People hear about that first connect only when
   * they were told before the restart that the node was lost; otherwise nothing changed for them.
   */
  protected quietFirstConnect = false;
  protected runRef: RunRef | null = null;
  protected runGph = 0;
  protected readonly serial = new Serial();
  protected readonly writes: WriteQueue;
  private readonly autoStop: TimerSlot;
  private readonly maxRuntime: TimerSlot;
  private aliveTimer: unknown = null;
  private finished: FinishedRuns = { count: 0, last: null };

  constructor(protected readonly deps: ControllerDeps) {
    this.writes = new WriteQueue(
      deps.repo,
      deps.clock,
      deps.logger,
      deps.config.dbRetryMs ?? 5000,
      (batch, runId) => this.onCommitted(batch, runId),
    );
    this.autoStop = new TimerSlot(deps.clock, () => this.fireAutoStop());
    this.maxRuntime = new TimerSlot(deps.clock, () => this.fireMaxRuntime());
  }

  protected get now(): number {
    return this.deps.clock.now();
  }

  // ---- boot -------------------------------------------------------------------------------------

  async boot(): Promise<BootReport> {
    return this.serial.run(async () => {
      const { repo, logger } = this.deps;
      const stored = await repo.loadSettings();
      this.settings = stored ?? structuredClone(DEFAULT_SETTINGS);
      const policy = this.deps.config.bootArmingPolicy ?? this.settings.boot_arming_policy;
      const previous = (await repo.loadState()) ?? { ...INITIAL_STATE };
      const now = this.now;
      const reset = bootReset(previous, policy, now);
      this.quietFirstConnect = previous.slave_connection_status !== 'disconnected';
      const { closeRuns, events, closed } = closeOrphans(
        await repo.openRuns(),
        previous.last_alive_at,
        now,
        this.settings.fuel.fuel_type,
      );
      if (reset.relayDisarmedByPolicy) {
        events.push(
          systemEvent(
            'boot_disarmed_failsafe',
            now,
            'disarmed',
            'relay disarmed at boot by the fail_safe policy',
            {
              boot_arming_policy: policy,
            },
          ),
        );
      }
      const bootLog = {
        boot_arming_policy: policy,
        relay_disarmed_by_policy: reset.relayDisarmedByPolicy,
        was_running: reset.wasRunning,
        orphan_runs_closed: closed,
      };
      reset.state.last_alive_at = now;
      await repo.commit({
        label: 'boot',
        state: reset.state,
        settings: stored ? undefined : this.settings,
        closeRuns,
        events: () => events,
        audit: [{ action: 'SYSTEM_BOOT_RESET', actor: SYSTEM, details: bootLog }],
      });
      this.state = reset.state;
      this.bootAt = now;
      const level = reset.relayDisarmedByPolicy || reset.wasRunning ? 'warn' : 'info';
      logger[level]({ event: 'SYSTEM_BOOT_RESET', ...bootLog }, 'SYSTEM_BOOT_RESET');
      if (this.deps.relay.available()) {
        await this.safeRelay(() => this.deps.relay.setArmed(this.state.slave_relay_armed));
        await this.safeRelay(() => this.deps.relay.commandRelay(false));
      } else {
        // The heartbeat sent when the broker connects carries this same intent (armed as reset, OFF).
        logger.info({}, 'relay node link not up yet: the first heartbeat carries the boot state');
      }
      this.afterChange(events.length > 0);
      this.startAliveStamp();
      return bootLog;
    });
  }

  /** Stops timers (tests, shutdown). */
  shutdown(): void {
    this.autoStop.cancel();
    this.maxRuntime.cancel();
    this.writes.stop();
    if (this.aliveTimer !== null) this.deps.clock.clearInterval(this.aliveTimer);
    this.aliveTimer = null;
  }

  private startAliveStamp(): void {
    const period = this.deps.config.aliveStampMs ?? 60_000;
    this.aliveTimer = this.deps.clock.setInterval(() => {
      if (this.writes.backlog > 0) return;
      void this.serial.run(async () => {
        this.state = { ...this.state, last_alive_at: this.now };
        await this.writes.enqueue({ label: 'alive', state: this.state }, false).catch(() => undefined);
      });
    }, period);
  }

  // ---- reads ------------------------------------------------------------------------------------

  get persisted(): Readonly<PersistedState> {
    return this.state;
  }

  get currentSettings(): Readonly<Settings> {
    return this.settings;
  }

  get hoaPosition(): HoaPosition {
    return this.hoa;
  }

  get bmsSignal(): boolean {
    return this.bmsActive;
  }

  /** Gallons per hour fixed at the start of the current run. */
  get currentRunRate(): number {
    return this.state.generator_running ? this.runGph : 0;
  }

  get pendingWrites(): number {
    return this.writes.backlog;
  }

  get finishedRuns(): Readonly<FinishedRuns> {
    return this.finished;
  }

  /** The relay intent the heartbeat carries. */
  desired(): { armed: boolean; relay_on: boolean } {
    return { armed: this.state.slave_relay_armed || this.hoaHold, relay_on: this.state.generator_running };
  }

  view(): generator.GeneratorState {
    return stateView({
      state: this.state,
      phase: this.phase,
      hoa: this.hoa,
      bmsActive: this.bmsActive,
      now: this.now,
    });
  }

  /** Why a start of this kind would be refused now, or null. */
  checkStart(trigger: Trigger, hoaRun = false): Refusal | null {
    return checkStart({ trigger, hoaRun }, { state: this.state, hoa: this.effectiveHoa(), now: this.now });
  }

  protected effectiveHoa(): HoaPosition {
    return this.hoa === 'fault' ? 'auto' : this.hoa;
  }

  // ---- start / stop -----------------------------------------------------------------------------

  start(cmd: StartCommand): Promise<StartOutcome> {
    return this.serial.run(async () => {
      const outcome = await this.doStart(cmd);
      await this.evaluate();
      return outcome;
    });
  }

  stop(reason: StopReason, actor: Actor, note: string | null = null): Promise<StopOutcome> {
    return this.serial.run(async () => {
      const outcome = await this.doStop(reason, actor, note);
      await this.evaluate();
      return outcome;
    });
  }

  /** Spec order: state row first, relay ON, run record, then the events (outbox). */
  protected async doStart(cmd: StartCommand): Promise<StartOutcome> {
    const refusal = this.checkStart(cmd.trigger, cmd.hoaRun);
    if (refusal) throw new DomainError(refusal.code, refusal.message);
    const route = this.relayRoute(cmd);
    await this.writes.flush();
    if (this.writes.stalled) throw new DomainError('db_unavailable', REFUSAL_MESSAGES.db_unavailable);
    const now = this.now;
    const duration = cmd.duration_minutes ?? null;
    const stopAt = duration !== null ? now + duration * 60_000 : null;
    const stopReason: StopReason | null =
      stopAt === null ? null : cmd.trigger === 'exercise' ? 'exercise_end' : 'scheduled_end';
    const next: PersistedState = {
      ...this.state,
      generator_running: true,
      run_trigger: cmd.trigger,
      generator_start_time: now,
      current_run_id: null,
      scheduled_stop_at: stopAt,
      scheduled_stop_reason: stopReason,
    };
    this.transition('start');
    const audit: AuditDraft = {
      action: 'generator.start',
      actor: cmd.actor,
      details: { trigger: cmd.trigger, duration_minutes: duration, notes: cmd.notes ?? null },
    };
    const ref: RunRef = { id: null };
    try {
      // Spec start sequence: the state row first, then the relay. Its flush rides on the run
      // record's commit right after the relay command, keeping the fsync off the start latency.
      await this.writes.enqueue(
        { label: 'start:state', state: next, audit: [audit], flushWithNext: true, reserveRunId: ref },
        false,
      );
    } catch (err) {
      this.transition('start_failed');
      this.deps.logger.error({ err }, 'start refused: database write failed');
      throw new DomainError('db_unavailable', REFUSAL_MESSAGES.db_unavailable);
    }
    this.state = next;
    this.hoaHold = cmd.hoaRun === true;
    const sent = await this.safeRelay(() => this.deps.relay.commandRelay(true));
    const fuel = this.settings.fuel;
    this.runRef = ref;
    this.runGph = rateFor(fuel);
    const info = {
      trigger: cmd.trigger,
      start_time: now,
      notes: cmd.notes ?? null,
      fuel_type: fuel.fuel_type,
      scheduled_stop_at: stopAt,
      scheduled_run_id: cmd.scheduled_run_id ?? null,
    };
    const runWrite = this.writes.enqueue(
      {
        label: 'start:run',
        state: next,
        createRun: {
          ref,
          start_time: now,
          trigger_type: cmd.trigger,
          notes: cmd.notes ?? null,
          fuel_type_at_run: fuel.fuel_type,
          load_at_run: fuel.expected_load,
          gph_at_run: this.runGph,
          scheduled_run_id: cmd.scheduled_run_id ?? null,
        },
        events: (runId) => startedEvents(runId, info),
      },
      true,
    );
    await this.within(runWrite);
    this.transition('started');
    this.afterChange(true);
    return {
      run_id: ref.id,
      start_time: now,
      trigger: cmd.trigger,
      scheduled_stop_at: stopAt,
      relay: route === 'broker' && !sent ? 'heartbeat' : route,
    };
  }

  /**
   * How this start's relay ON can go out, or a 503-style refusal. With the broker down a start is
   * still recorded when a deferred route exists, except for a standing request (the input signal, the
   * selector at Run): it asks again on every evaluation, so a start that never reaches the relay would
   * end with comm_loss and be taken again at once, a new run every lease. Those wait for the broker.
   */
  private relayRoute(cmd: StartCommand): RelayDelivery {
    const relay = this.deps.relay;
    if (relay.available()) return 'broker';
    const standing = cmd.trigger === 'bms' || cmd.hoaRun === true;
    const route = standing ? null : (relay.deferredRoute?.() ?? null);
    if (route === null) throw new DomainError('relay_unavailable', REFUSAL_MESSAGES.relay_unavailable);
    return route;
  }

  /** Spec order: state row first, relay OFF, run record completed, auto-stop cancelled, events. */
  protected async doStop(reason: StopReason, actor: Actor, note: string | null): Promise<StopOutcome> {
    const s = this.state;
    if (!s.generator_running) {
      // Relay OFF always works: re-assert it even when there is no run.
      await this.safeRelay(() => this.deps.relay.commandRelay(false));
      void this.writes
        .enqueue(
          {
            label: 'stop:idle',
            audit: [{ action: 'generator.stop', actor, details: { reason, note, was_running: false } }],
          },
          true,
        )
        .catch(() => undefined);
      return { run_id: null, duration_seconds: null, stop_reason: reason, was_running: false };
    }
    const now = this.now;
    const startTime = s.generator_start_time ?? now;
    const duration = Math.max(0, Math.floor((now - startTime) / 1000));
    const fuelUsed = estimateFuel(duration, this.runGph);
    const limitsAfter = reason === 'max_runtime' ? afterMaxRuntime(this.settings.limits, now) : {};
    const next: PersistedState = {
      ...s,
      ...limitsAfter,
      generator_running: false,
      run_trigger: 'idle',
      generator_start_time: null,
      current_run_id: null,
      scheduled_stop_at: null,
      scheduled_stop_reason: null,
    };
    this.transition('stop');
    const ref = this.runRef ?? { id: s.current_run_id };
    this.state = next;
    this.hoaHold = false;
    const stateWrite = this.writes.enqueue(
      {
        label: 'stop:state',
        state: next,
        audit: [
          {
            action: 'generator.stop',
            actor,
            details: { reason, note, run_id: ref.id, duration_seconds: duration },
          },
        ],
      },
      true,
    );
    // The database goes first, but a failing or slow database never holds the relay on.
    await this.within(stateWrite);
    await this.safeRelay(() => this.deps.relay.commandRelay(false));
    const trigger = s.run_trigger === 'idle' ? 'manual' : s.run_trigger;
    const info = {
      trigger,
      reason,
      start_time: startTime,
      stop_time: now,
      duration_seconds: duration,
      fuel_gallons: fuelUsed,
      fuel_type: this.settings.fuel.fuel_type,
      note,
    };
    const runWrite = this.writes.enqueue(
      {
        label: 'stop:run',
        closeRuns: [
          {
            ref,
            stop_time: now,
            duration_seconds: duration,
            stop_reason: reason,
            estimated_fuel_used: fuelUsed,
            stop_note: note,
          },
        ],
        events: () => {
          const events = stoppedEvents(ref.id, info);
          if (reason === 'max_runtime') {
            const details = `run stopped after ${this.settings.limits.max_run_minutes} minutes`;
            events.push(systemEvent('max_runtime_reached', now, 'stopped', details, { run_id: ref.id }));
            if (next.lockout_active) {
              events.push(
                systemEvent('lockout_activated', now, 'locked_out', 'acknowledge to allow restarts', {
                  run_id: ref.id,
                }),
              );
            }
          }
          return events;
        },
      },
      true,
    );
    this.runRef = null;
    this.autoStop.cancel();
    this.maxRuntime.cancel();
    this.finished = {
      count: this.finished.count + 1,
      last: { stop_time: now, duration_seconds: duration, fuel_gallons: fuelUsed },
    };
    await this.within(runWrite);
    this.transition('stopped');
    this.afterChange(true);
    return { run_id: ref.id, duration_seconds: duration, stop_reason: reason, was_running: true };
  }

  private onCommitted(batch: CommitBatch, runId: number | null): void {
    if (batch.createRun && this.runRef === batch.createRun.ref && this.state.generator_running) {
      this.state = { ...this.state, current_run_id: runId };
    }
    if (batch.events) this.deps.bus.eventsQueued();
    if (batch.createRun || batch.closeRuns) this.deps.bus.stateChanged();
  }

  /** Waits for a write at most dbWaitMs (clock time); the write itself carries on. */
  protected within(write: Promise<unknown>): Promise<void> {
    const wait = this.deps.config.dbWaitMs ?? 1500;
    return new Promise((resolve) => {
      const handle = this.deps.clock.setTimeout(resolve, wait);
      void this.writes.stallSignal().then(() => {
        this.deps.clock.clearTimeout(handle);
        resolve();
      });
      write.then(
        () => {
          this.deps.clock.clearTimeout(handle);
          resolve();
        },
        () => {
          this.deps.clock.clearTimeout(handle);
          resolve();
        },
      );
    });
  }

  /** False when the command failed; never throws. */
  protected async safeRelay(fn: () => Promise<void>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (err) {
      // The next heartbeat carries the same intent and synchronises the relay node.
      this.deps.logger.warn({ err }, 'relay command failed; the next heartbeat will synchronise');
      return false;
    }
  }

  protected transition(event: PhaseEvent): void {
    this.phase = nextPhase(this.phase, event);
  }

  /** Persists a change that must not be lost (queued while the database is down). */
  protected persist(batch: CommitBatch): Promise<void> {
    return this.within(this.writes.enqueue(batch, true));
  }

  /** Persists a change that needs the database now (settings, arming); throws 503-style when down. */
  protected async persistNow(batch: CommitBatch): Promise<void> {
    await this.writes.flush();
    try {
      await this.writes.enqueue(batch, false);
    } catch (err) {
      this.deps.logger.error({ err, batch: batch.label }, 'database write failed');
      throw new DomainError('db_unavailable', 'The database is unavailable');
    }
  }

  protected afterChange(events: boolean): void {
    this.rearmTimers();
    this.deps.bus.stateChanged();
    if (events) this.deps.bus.eventsQueued();
  }

  protected rearmTimers(): void {
    const s = this.state;
    this.autoStop.at(s.generator_running ? s.scheduled_stop_at : null);
    this.maxRuntime.at(this.hoaHold ? null : maxRuntimeDeadline(s, this.settings.limits));
  }

  private fireAutoStop(): void {
    void this.serial
      .run(async () => {
        const reason = this.state.scheduled_stop_reason ?? 'scheduled_end';
        if (!this.state.generator_running || this.state.scheduled_stop_at === null) return;
        if (this.state.scheduled_stop_at > this.now) return this.rearmTimers();
        await this.doStop(reason, { who: 'scheduler', from: 'auto-stop' }, 'duration reached');
        await this.evaluate();
      })
      .catch((err) => this.deps.logger.error({ err }, 'auto-stop failed'));
  }

  private fireMaxRuntime(): void {
    void this.serial
      .run(async () => {
        const deadline = maxRuntimeDeadline(this.state, this.settings.limits);
        if (deadline === null || this.hoaHold) return;
        if (deadline > this.now) return this.rearmTimers();
        await this.doStop(
          'max_runtime',
          SYSTEM,
          `maximum runtime of ${this.settings.limits.max_run_minutes} minutes`,
        );
        await this.evaluate();
      })
      .catch((err) => this.deps.logger.error({ err }, 'max-runtime stop failed'));
  }

  /** Re-decides automatic starts and stops after any change; overridden by the automation layer. */
  protected async evaluate(): Promise<void> {}
}
