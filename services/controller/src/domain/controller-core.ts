import type { GeneratorStateName, generator, HoaPosition, StopReason, Trigger } from '@outpost/contracts';
import { type Clock, Serial } from './clock.js';
import type { ControllerModule, ModuleHost } from './controller-module.js';
import type { ControllerDeps, StartCommand, StartOutcome, StopOutcome } from './controller-types.js';
import { CoreBus } from './core-bus.js';
import { DomainError } from './errors.js';
import { checkStart, type Refusal } from './gates.js';
import { startSequence } from './start-sequence.js';
import { stateView } from './state-view.js';
import { stopSequence } from './stop-sequence.js';
import { type MeterReading, RunMeters } from './run-meters.js';
import { nextPhase, type PhaseEvent } from './transitions.js';
import {
  type Actor,
  type CommitBatch,
  DEFAULT_SETTINGS,
  INITIAL_STATE,
  type PersistedState,
  type RunRef,
  type Settings,
} from './types.js';
import { WriteQueue } from './write-queue.js';

export type {
  BootReport,
  ControllerConfig,
  ControllerDeps,
  RelayDelivery,
  StartCommand,
  StartOutcome,
  StopOutcome,
} from './controller-types.js';

/**
 * The generator state machine's core: the persisted state, the phase, the inputs as the gates see
 * them, the start and stop sequences, and the writes. Inputs and features are modules registered
 * with it; the tick asks their deciders in precedence order.
 */
export class GeneratorCore implements ModuleHost {
  state: PersistedState = { ...INITIAL_STATE };
  settings: Settings = structuredClone(DEFAULT_SETTINGS);
  phase: GeneratorStateName = 'idle';
  hoa: HoaPosition = 'auto';
  bmsActive = false;
  /** The selector at Run holds the generator on; limits and the input signal cannot stop it. */
  hoaHold = false;
  bootAt = 0;
  runRef: RunRef | null = null;
  runGph = 0;
  /** Run hours and fuel for HA and /metrics: completed runs plus the runs going now. */
  readonly meters = new RunMeters();
  readonly serial = new Serial();
  readonly writes: WriteQueue;
  readonly events = new CoreBus();
  private readonly modules: ControllerModule[] = [];

  constructor(readonly deps: ControllerDeps) {
    this.writes = new WriteQueue(
      deps.repo,
      deps.clock,
      deps.logger,
      deps.config.dbRetryMs ?? 5000,
      (batch, runId) => this.onCommitted(batch, runId),
    );
  }

  register<M extends ControllerModule>(module: M): M {
    this.modules.push(module);
    module.start();
    return module;
  }

  get now(): number {
    return this.deps.clock.now();
  }

  get clock(): Clock {
    return this.deps.clock;
  }

  /** Stops timers (tests, shutdown). */
  shutdown(): void {
    this.writes.stop();
    for (const module of this.modules) module.stop?.();
  }

  // ---- reads ------------------------------------------------------------------------------------

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

  /** The run meters now: the commanded run is open exactly while the state row says it runs. */
  meterReading(): MeterReading {
    const s = this.state;
    const open = s.generator_running && s.generator_start_time !== null;
    return this.meters.read(
      this.now,
      open ? { start: s.generator_start_time as number, gph: this.runGph } : null,
    );
  }

  /** Why a start of this kind would be refused now, or null. */
  checkStart(trigger: Trigger, hoaRun = false): Refusal | null {
    const gate = checkStart(
      { trigger, hoaRun },
      { state: this.state, hoa: this.effectiveHoa(), now: this.now },
    );
    if (gate) return gate;
    for (const guard of this.startGuards) {
      const refusal = guard();
      if (refusal) return refusal;
    }
    return null;
  }

  /** Refusals a module adds after the gates (the generator's own controller in Stop or shut down). */
  private readonly startGuards: (() => Refusal | null)[] = [];

  addStartGuard(guard: () => Refusal | null): void {
    this.startGuards.push(guard);
  }

  effectiveHoa(): HoaPosition {
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

  /** The start sequence, inside a serial section the caller already holds. */
  async doStart(cmd: StartCommand): Promise<StartOutcome> {
    const outcome = await startSequence(this, cmd);
    this.events.emit('runStarted', outcome);
    return outcome;
  }

  /** The stop sequence, inside a serial section the caller already holds. */
  async doStop(
    reason: StopReason,
    actor: Actor,
    note: string | null,
    value: number | null = null,
  ): Promise<StopOutcome> {
    const outcome = await stopSequence(this, reason, actor, note, value);
    this.events.emit('runStopped', reason, actor, outcome);
    return outcome;
  }

  private onCommitted(batch: CommitBatch, runId: number | null): void {
    if (batch.createRun && this.runRef === batch.createRun.ref && this.state.generator_running) {
      this.state = { ...this.state, current_run_id: runId };
    }
    if (batch.events) this.deps.bus.eventsQueued();
    if (batch.createRun || batch.closeRuns) this.deps.bus.stateChanged();
  }

  // ---- what modules use -------------------------------------------------------------------------

  /** Waits for a write at most dbWaitMs (clock time); the write itself carries on. */
  within(write: Promise<unknown>): Promise<void> {
    const wait = this.deps.config.dbWaitMs ?? 1500;
    return new Promise((resolve) => {
      const handle = this.deps.clock.setTimeout(resolve, wait);
      const done = () => {
        this.deps.clock.clearTimeout(handle);
        resolve();
      };
      void this.writes.stallSignal().then(done);
      write.then(done, done);
    });
  }

  /** False when the command failed; never throws. */
  async safeRelay(fn: () => Promise<void>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (err) {
      // The next heartbeat carries the same intent and synchronises the relay node.
      this.deps.logger.warn({ err }, 'relay command failed; the next heartbeat will synchronise');
      return false;
    }
  }

  transition(event: PhaseEvent): void {
    this.phase = nextPhase(this.phase, event);
  }

  /** Persists a change that must not be lost (queued while the database is down). */
  persist(batch: CommitBatch): Promise<void> {
    return this.within(this.writes.enqueue(batch, true));
  }

  /** Persists a change that needs the database now (settings, arming); throws 503-style when down. */
  async persistNow(batch: CommitBatch): Promise<void> {
    await this.writes.flush();
    try {
      await this.writes.enqueue(batch, false);
    } catch (err) {
      this.deps.logger.error({ err, batch: batch.label }, 'database write failed');
      throw new DomainError('db_unavailable', 'The database is unavailable');
    }
  }

  afterChange(events: boolean): void {
    this.rearmTimers();
    this.deps.bus.stateChanged();
    if (events) this.deps.bus.eventsQueued();
  }

  rearmTimers(): void {
    this.events.emit('rearm');
  }

  /** Re-runs the tick from a timer, outside any caller's serial section. */
  reevaluateSoon(): void {
    void this.serial
      .run(() => this.evaluate())
      .catch((err) => this.deps.logger.error({ err }, 'evaluation failed'));
  }

  /** Decides what the inputs ask for now, in the spec's precedence (the deciders' order). */
  async evaluate(): Promise<void> {
    for (const module of this.modules) {
      if (module.decide && (await module.decide())) return;
    }
  }
}
