import type {
  generator,
  genset,
  HoaPosition,
  health,
  OverrideType,
  StopReason,
  Trigger,
} from '@outpost/contracts';
import { bootSequence } from './boot-sequence.js';
import { GeneratorCore } from './controller-core.js';
import type {
  BootReport,
  ControllerDeps,
  StartCommand,
  StartOutcome,
  StopOutcome,
} from './controller-types.js';
import type { Refusal } from './gates.js';
import type { MeterReading } from './run-meters.js';
import { AliveStamp } from './modules/alive-stamp.js';
import { Arming } from './modules/arming.js';
import { AutoStop } from './modules/auto-stop.js';
import { type ExerciseUntilFull, exerciseHold } from './modules/exercise-until-full.js';
import { BmsSignal } from './modules/bms-signal.js';
import { Cooldown } from './modules/cooldown.js';
import { ExerciseReports } from './modules/exercise-reports.js';
import { ForgottenStates } from './modules/forgotten-states.js';
import { GensetFollower } from './modules/genset-follower.js';
import { HoaSelector } from './modules/hoa-selector.js';
import { HourMeter } from './modules/hour-meter.js';
import { Overrides } from './modules/overrides.js';
import { QuietOverride } from './modules/quiet-override.js';
import { type RelayLinkView, type RelayReport, RelayReports } from './modules/relay-reports.js';
import { LinkIntegrity } from './modules/link-integrity.js';
import { RunningFeedback } from './modules/running-feedback.js';
import { RuntimeLimits } from './modules/runtime-limits.js';
import { SettingsAndFuel, type SettingsPatch } from './modules/settings-and-fuel.js';
import { StartConditions } from './modules/start-conditions.js';
import type { Actor, EventDraft, PersistedState, Settings } from './types.js';

export type { RelayReport } from './modules/relay-reports.js';

/**
 * The generator state machine as the rest of the controller sees it: the core with its modules (the
 * input signal, the HOA selector, the Quiet override, the force_run/force_stop overrides, arming,
 * runtime limits and cooldown, settings and fuel, and what the relay node reports).
 */
export class GeneratorController {
  private readonly core: GeneratorCore;
  private readonly runtimeLimits: RuntimeLimits;
  private readonly quiet: QuietOverride;
  private readonly arming: Arming;
  private readonly overrides: Overrides;
  private readonly settingsAndFuel: SettingsAndFuel;
  private readonly hoa: HoaSelector;
  private readonly bms: BmsSignal;
  /** Start conditions (state of charge, voltage, current, load, warnings): GET/PUT /api/conditions. */
  readonly conditions: StartConditions;
  private readonly relay: RelayReports;
  private readonly linkIntegrity: LinkIntegrity;
  private readonly feedback: RunningFeedback;
  private readonly hourMeter: HourMeter;
  private readonly aliveStamp: AliveStamp;
  /** The generator's own controller over Modbus, as the relay node reports it. */
  readonly genset: GensetFollower;
  private maintenanceDue = false;
  private exerciseUntilFull: ExerciseUntilFull | null = null;

  constructor(deps: ControllerDeps) {
    const core = new GeneratorCore(deps);
    this.core = core;
    // Registration order is the order timers are armed and deciders are asked: keep it.
    this.aliveStamp = core.register(new AliveStamp(core));
    core.register(
      new AutoStop(core, () =>
        exerciseHold(
          this.exerciseUntilFull,
          core.state.generator_start_time ?? core.now,
          core.now,
          this.conditions.fresh('soc'),
        ),
      ),
    );
    this.runtimeLimits = core.register(new RuntimeLimits(core));
    this.quiet = core.register(new QuietOverride(core));
    core.register(new Cooldown(core));
    this.arming = core.register(new Arming(core));
    this.overrides = core.register(new Overrides(core));
    this.settingsAndFuel = core.register(new SettingsAndFuel(core));
    this.hoa = core.register(new HoaSelector(core, this.quiet));
    // Before the input signal, whose decider always decides: a condition is an automatic start like it.
    this.conditions = core.register(new StartConditions(core, deps.config.timezone ?? 'UTC'));
    this.bms = core.register(new BmsSignal(core));
    this.relay = core.register(new RelayReports(core));
    this.linkIntegrity = core.register(new LinkIntegrity(core));
    this.feedback = core.register(new RunningFeedback(core));
    this.hourMeter = core.register(new HourMeter(core, this.feedback));
    core.register(new ExerciseReports(core, this.feedback));
    core.register(new ForgottenStates(core));
    this.genset = core.register(new GensetFollower(core, this.feedback, (s) => this.hourMeter.adoptModule(s)));
    this.lastViewAt = {
      state: core.state,
      phase: core.phase,
      hoa: core.hoa,
      bms: false,
      relay: null,
      link: this.relay.view,
      feedback: null,
      external: false,
      maintenance: false,
      genset: null,
      conditions: -1,
      now: -1,
    };
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  boot(): Promise<BootReport> {
    return bootSequence(this.core);
  }

  /** The exercise schedule's "until the battery is full" option (null: off); read at the exercise's duration. */
  setExerciseUntilFull(cfg: ExerciseUntilFull | null): void {
    this.exerciseUntilFull = cfg;
  }

  /** Stops timers (tests, shutdown). */
  shutdown(): void {
    this.core.shutdown();
  }

  /** A graceful shutdown: the last alive stamp once the queued writes are done, then the timers. */
  async close(): Promise<void> {
    await this.aliveStamp.final();
    this.core.shutdown();
  }

  // ---- reads ------------------------------------------------------------------------------------

  get persisted(): Readonly<PersistedState> {
    return this.core.state;
  }

  get currentSettings(): Readonly<Settings> {
    return this.core.settings;
  }

  get hoaPosition(): HoaPosition {
    return this.core.hoa;
  }

  get bmsSignal(): boolean {
    return this.core.bmsActive;
  }

  /** Gallons per hour fixed at the start of the current run. */
  get currentRunRate(): number {
    return this.settingsAndFuel.currentRunRate;
  }

  get pendingWrites(): number {
    return this.core.writes.backlog;
  }

  /** Run seconds and fuel since the last reset, completed runs plus the runs going now. */
  meters(): MeterReading {
    return this.core.meterReading();
  }

  /** The relay intent the heartbeat carries. */
  desired(): { armed: boolean; relay_on: boolean } {
    return this.core.desired();
  }

  /** Why a start of this kind would be refused now, or null. */
  checkStart(trigger: Trigger, hoaRun = false): Refusal | null {
    return this.core.checkStart(trigger, hoaRun);
  }

  private lastView: Readonly<generator.GeneratorState & { relay_node_relay_on: boolean | null }> | null =
    null;
  private lastViewAt: {
    state: PersistedState;
    phase: GeneratorCore['phase'];
    hoa: HoaPosition;
    bms: boolean;
    relay: boolean | null;
    link: RelayLinkView;
    feedback: boolean | null;
    external: boolean;
    maintenance: boolean;
    genset: genset.GensetState | null;
    conditions: number;
    now: number;
  };

  /**
   * The state as clients see it. The same object while nothing it derives from has changed
   * (state, phase, inputs, the clock's millisecond), so a busy read path neither rebuilds nor
   * re-serialises it. Frozen: callers share it.
   */
  view() {
    const core = this.core;
    const now = core.now;
    const at = this.lastViewAt;
    const relayOn = this.relay.relayOn;
    const link = this.relay.view;
    const feedback = this.feedback.value;
    const external = this.feedback.externalRunActive;
    const gensetState = this.genset.state;
    if (
      this.lastView &&
      at.now === now &&
      at.state === core.state &&
      at.phase === core.phase &&
      at.hoa === core.hoa &&
      at.bms === core.bmsActive &&
      at.relay === relayOn &&
      at.link === link &&
      at.feedback === feedback &&
      at.external === external &&
      at.maintenance === this.maintenanceDue &&
      at.genset === gensetState &&
      at.conditions === this.conditions.version
    ) {
      return this.lastView;
    }
    this.lastViewAt = {
      state: core.state,
      phase: core.phase,
      hoa: core.hoa,
      bms: core.bmsActive,
      relay: relayOn,
      link,
      feedback,
      external,
      maintenance: this.maintenanceDue,
      genset: gensetState,
      conditions: this.conditions.version,
      now,
    };
    this.lastView = Object.freeze({
      ...core.view(),
      relay_node_relay_on: relayOn,
      ...link,
      running_feedback: feedback,
      external_run_active: external,
      health_alarm: core.state.health_alarm,
      engine_hours: Math.round(this.hourMeter.hours * 1e6) / 1e6,
      maintenance_due: this.maintenanceDue,
      genset: gensetState,
      ...(this.conditions.inUse ? { conditions: this.conditions.status() } : {}),
    });
    return this.lastView;
  }

  // ---- commands ---------------------------------------------------------------------------------

  start(cmd: StartCommand): Promise<StartOutcome> {
    return this.core.start(cmd);
  }

  stop(reason: StopReason, actor: Actor, note: string | null = null): Promise<StopOutcome> {
    return this.core.stop(reason, actor, note);
  }

  arm(actor: Actor): Promise<PersistedState> {
    return this.arming.arm(actor);
  }

  /** Always succeeds: disarming is a safety action and is queued while the database is down. */
  disarm(actor: Actor): Promise<PersistedState> {
    return this.arming.disarm(actor);
  }

  enableOverride(type: OverrideType, actor: Actor): Promise<PersistedState> {
    return this.overrides.enable(type, actor);
  }

  disableOverride(actor: Actor): Promise<PersistedState> {
    return this.overrides.disable(actor);
  }

  enableQuietOverride(minutes: number, actor: Actor): Promise<PersistedState> {
    return this.quiet.enable(minutes, actor);
  }

  cancelQuietOverride(actor: Actor): Promise<PersistedState> {
    return this.quiet.cancel(actor);
  }

  /** Called once the boot read of the selector is in; see QuietOverride.reconcile. */
  reconcileQuietOverride(): Promise<void> {
    return this.quiet.reconcile();
  }

  clearLockout(actor: Actor): Promise<{ cleared: boolean }> {
    return this.runtimeLimits.clearLockout(actor);
  }

  updateSettings(patch: SettingsPatch, actor: Actor): Promise<Settings> {
    return this.settingsAndFuel.update(patch, actor);
  }

  resetFuel(actor: Actor): Promise<number> {
    return this.settingsAndFuel.resetFuel(actor);
  }

  // ---- inputs -----------------------------------------------------------------------------------

  /** A raw reading of the input signal; the debounce setting (ms, default 0) must see it stable. */
  setBmsSignal(active: boolean): Promise<void> {
    return this.bms.set(active);
  }

  setHoaPosition(position: HoaPosition): Promise<void> {
    return this.hoa.set(position);
  }

  /** True once the relay node confirms the current run's relay ON; false after `ms` without. */
  waitRelayConfirmed(ms: number): Promise<boolean> {
    return this.relay.waitConfirmed(ms);
  }

  relayReported(report: RelayReport): Promise<void> {
    return this.relay.reported(report);
  }

  /** A relay node report (or epoch claim) failed verification and was ignored. */
  relayReportUnverified(reason: string): Promise<void> {
    return this.linkIntegrity.reportUnverified(reason);
  }

  /** The lease could not be published while connected (why), or is published again (null). */
  leasePublishing(failure: string | null): Promise<void> {
    return this.linkIntegrity.publishing(failure);
  }

  // ---- generator health -------------------------------------------------------------------------

  /** A running-feedback reading; only the source the health settings name acts on it. */
  runningFeedback(source: Exclude<health.FeedbackSource, 'none'>, running: boolean): Promise<void> {
    return this.feedback.report(source, running);
  }

  /** Feedback status, alarm and hour meter, for GET /api/health. */
  healthStatus(): health.HealthStatus {
    const core = this.core;
    const confirmed = this.feedback.runConfirmedAt;
    return {
      running_feedback_source: this.feedback.source,
      running_feedback: this.feedback.value,
      fail_to_start_policy: core.settings.health.fail_to_start_policy,
      start_confirm_seconds: Math.round(this.feedback.confirmMs / 1000),
      run_confirmed_at: confirmed === null ? null : Math.floor(confirmed / 1000),
      external_run_active: this.feedback.externalRunActive,
      alarm: core.state.health_alarm,
      engine_hours: Math.round(this.hourMeter.hours * 1e6) / 1e6,
      ...this.genset.health(),
    };
  }

  get engineHours(): number {
    return this.hourMeter.hours;
  }

  setEngineHours(hours: number, actor: Actor): Promise<number> {
    return this.hourMeter.set(hours, actor);
  }

  /** Events of the controller's other features (service reminders), written through the same outbox. */
  recordEvents(label: string, events: EventDraft[]): Promise<void> {
    return this.core.persist({ label, events: () => events });
  }

  /** Whether a maintenance item is due, for the state (Home Assistant's problem sensor). */
  setMaintenanceDue(due: boolean): void {
    if (due === this.maintenanceDue) return;
    this.maintenanceDue = due;
    this.core.deps.bus.stateChanged();
  }

  async updateHealthSettings(patch: Partial<Settings['health']>, actor: Actor): Promise<Settings['health']> {
    const previous = this.core.settings.health.running_feedback_source;
    const next = await this.settingsAndFuel.update({ health: patch }, actor);
    await this.feedback.sourceChanged(previous);
    return next.health;
  }
}
