import type { health } from '@outpost/contracts';
import { TimerSlot } from '../clock.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { raiseAlarm } from '../health-events.js';
import { ExternalRuns, FEEDBACK } from './external-runs.js';

const SYSTEM_FEEDBACK = { who: 'system', from: 'running-feedback' };

/**
 * "The generator is actually running", from the one source the settings name (GPIO, MQTT or the
 * API). With no source the controller behaves as it always did. With one, a commanded start must be
 * confirmed within START_CONFIRM_SECONDS (fail_to_start), a confirmed run whose feedback drops is an
 * unexpected stop, and feedback with no commanded run is recorded as an external run.
 */
export class RunningFeedback implements ControllerModule {
  /** Latest reading of every source, so switching source picks up its current value. */
  private readonly readings: Partial<Record<health.FeedbackSource, boolean>> = {};
  private readonly confirmTimer: TimerSlot;
  /** After a commanded stop: a generator still running when the confirm window is over ran on its own. */
  private readonly afterStopTimer: TimerSlot;
  private readonly external: ExternalRuns;
  /** When the feedback confirmed the current commanded run; null until it has. */
  private confirmedAt: number | null = null;
  /** The current run already raised its alarm (keep_running policy): it is not raised again. */
  private alarmed = false;
  /** A source chosen during a run gets its full confirm window from then, not from the run's start. */
  private confirmFrom = 0;

  constructor(private readonly core: ModuleHost) {
    this.confirmTimer = new TimerSlot(core.clock, () => this.confirmDeadline());
    this.afterStopTimer = new TimerSlot(core.clock, () => this.stillRunningAfterStop());
    this.external = new ExternalRuns(core);
  }

  start(): void {
    const events = this.core.events;
    events.on('runStarted', () => {
      this.afterStopTimer.cancel();
      this.alarmed = false;
      this.confirmFrom = 0;
      this.confirmedAt = this.value === true ? this.core.now : null;
      // The start's own rearm ran before this event, still seeing the previous run's confirmation.
      this.confirmTimer.at(this.confirmDeadlineAt());
      // A commanded start while the panel already runs it: Outpost takes the run over.
      if (this.external.active) this.afterSection(() => this.external.end('taken over by a commanded start'));
    });
    events.on('rearm', () => this.confirmTimer.at(this.confirmDeadlineAt()));
    // confirmedAt stays until the next start: the exercise report of the run just closed reads it.
    events.on('runClosed', () => this.confirmTimer.cancel());
    events.on('runStopped', (_reason, _actor, outcome) => {
      // A run-down after the relay opens is normal; still running a whole confirm window later is not.
      if (outcome.was_running && this.source !== 'none')
        this.afterStopTimer.at(this.core.now + this.confirmMs);
    });
  }

  stop(): void {
    this.confirmTimer.cancel();
    this.afterStopTimer.cancel();
  }

  get source(): health.FeedbackSource {
    return this.core.settings.health.running_feedback_source;
  }

  /** The configured source's reading; null with no source or before it reported. */
  get value(): boolean | null {
    const source = this.source;
    return source === 'none' ? null : (this.readings[source] ?? null);
  }

  get runConfirmedAt(): number | null {
    return this.core.state.generator_running ? this.confirmedAt : null;
  }

  /** When the feedback confirmed the newest commanded run, running or just closed. */
  get lastConfirmedAt(): number | null {
    return this.confirmedAt;
  }

  get externalRunActive(): boolean {
    return this.external.active;
  }

  get confirmMs(): number {
    return (this.core.deps.config.startConfirmSeconds ?? 60) * 1000;
  }

  /** A reading from one source; only the configured source acts. */
  report(source: Exclude<health.FeedbackSource, 'none'>, running: boolean): Promise<void> {
    const core = this.core;
    return core.serial.run(async () => {
      const before = this.value;
      this.readings[source] = running;
      if (source !== this.source || before === running) return;
      core.deps.logger.info({ source, running }, 'running feedback changed');
      if (running) await this.rose();
      else await this.fell();
      core.afterChange(false);
      await core.evaluate();
    });
  }

  /**
   * A source that cannot say now (the genset module went stale or does not report its engine): its
   * reading becomes unknown. Unknown is not "stopped": no unexpected stop, and no fail-to-start until
   * a known reading says the engine did not start.
   */
  unknown(source: Exclude<health.FeedbackSource, 'none'>): Promise<void> {
    const core = this.core;
    return core.serial.run(async () => {
      if (this.readings[source] === undefined) return;
      delete this.readings[source];
      if (source !== this.source) return;
      core.deps.logger.warn({ source }, 'running feedback unknown');
      core.afterChange(false);
    });
  }

  /** The settings changed the source: act on the new source's current reading. */
  sourceChanged(previous: health.FeedbackSource): Promise<void> {
    const core = this.core;
    return core.serial.run(async () => {
      if (previous === this.source) return;
      this.confirmFrom = core.now;
      if (this.source === 'none' || this.value !== true)
        await this.external.end('running feedback source changed');
      else if (core.state.generator_running && this.confirmedAt === null) this.confirmedAt = core.now;
      core.afterChange(false);
    });
  }

  private async rose(): Promise<void> {
    const core = this.core;
    if (!core.state.generator_running) return this.external.begin();
    if (this.confirmedAt !== null) return;
    const now = core.now;
    this.confirmedAt = now;
    this.confirmTimer.cancel();
    const start = core.state.generator_start_time ?? now;
    const seconds = Math.max(0, Math.round((now - start) / 1000));
    // A standing alarm stays until a user acknowledges it: whoever can publish the feedback (a smart
    // plug, an energy meter) must not be able to hide a fail-to-start by reporting "running" late.
    await core.persist({
      label: 'feedback:confirmed',
      audit: [
        {
          action: 'generator.start_confirmed',
          actor: FEEDBACK,
          details: { run_id: core.state.current_run_id, confirm_seconds: seconds },
        },
      ],
    });
  }

  private async fell(): Promise<void> {
    const core = this.core;
    if (this.external.active) return this.external.end('stopped at the generator (running feedback fell)');
    if (!core.state.generator_running || this.confirmedAt === null || this.alarmed) return;
    this.alarmed = true;
    const runId = core.state.current_run_id;
    const details = 'running feedback fell while the run was commanded';
    if (this.policy === 'keep_running') {
      await this.raise('unexpected_stop', details, { run_id: runId, relay: 'kept_on' }, false);
      return;
    }
    // The relay goes OFF first: the alarm's write never holds it on.
    await core.doStop('unexpected_stop', FEEDBACK, details);
    await this.raise('unexpected_stop', details, { run_id: runId, relay: 'dropped' }, true);
  }

  private get policy(): health.FailToStartPolicy {
    return this.core.settings.health.fail_to_start_policy;
  }

  private confirmDeadlineAt(): number | null {
    const s = this.core.state;
    if (this.source === 'none' || !s.generator_running || this.confirmedAt !== null || this.alarmed)
      return null;
    return Math.max(s.generator_start_time ?? this.core.now, this.confirmFrom) + this.confirmMs;
  }

  private confirmDeadline(): void {
    const core = this.core;
    void core.serial
      .run(async () => {
        const deadline = this.confirmDeadlineAt();
        if (deadline === null) return;
        if (deadline > core.now) return core.rearmTimers();
        // An unknown genset reading waits: the check runs again when a known reading arrives.
        if (this.source === 'genset' && this.value === null) return;
        this.alarmed = true;
        const runId = core.state.current_run_id;
        const seconds = Math.round(this.confirmMs / 1000);
        const details = `no running feedback within ${seconds} s of relay ON`;
        if (this.policy === 'keep_running') {
          await this.raise('fail_to_start', details, { run_id: runId, relay: 'kept_on' }, false);
          return;
        }
        await core.doStop('error', SYSTEM_FEEDBACK, `fail to start: ${details}`);
        await this.raise('fail_to_start', details, { run_id: runId, relay: 'dropped' }, true);
        await core.evaluate();
      })
      .catch((err) => core.deps.logger.error({ err }, 'fail-to-start check failed'));
  }

  private stillRunningAfterStop(): void {
    const core = this.core;
    void core.serial
      .run(async () => {
        if (core.state.generator_running || this.value !== true || this.external.active) return;
        core.deps.logger.warn(
          {},
          'the generator still runs after a commanded stop: recorded as an external run',
        );
        await this.external.begin('still running after a commanded stop');
        core.afterChange(false);
      })
      .catch((err) => core.deps.logger.error({ err }, 'running feedback after stop'));
  }

  /** Records the alarm (and the lockout the drop policy adds); inside a serial section. */
  private raise(
    alarm: health.HealthAlarm,
    details: string,
    extra: Record<string, unknown>,
    lockout: boolean,
  ): Promise<void> {
    return raiseAlarm(this.core, { alarm, details, extra, lockout, actor: SYSTEM_FEEDBACK });
  }

  /** Work that must follow the caller's serial section (listeners cannot await). */
  private afterSection(fn: () => Promise<void>): void {
    void this.core.serial.run(fn).catch((err) => this.core.deps.logger.error({ err }, 'running feedback'));
  }
}
