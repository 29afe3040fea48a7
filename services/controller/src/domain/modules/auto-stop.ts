import { TimerSlot } from '../clock.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import type { ExerciseHold } from './exercise-until-full.js';

/**
 * Ends a run that was started for a duration (schedules, exercise, timed manual runs). An exercise run
 * with "until the battery is full" may go on past its duration: `exerciseHold` says whether it does.
 */
export class AutoStop implements ControllerModule {
  private readonly timer: TimerSlot;
  /** An exercise run past its duration, held by a soc below full. */
  private extended = false;

  constructor(
    private readonly core: ModuleHost,
    private readonly exerciseHold: () => ExerciseHold = () => ({
      hold: false,
      note: 'duration reached',
      value: null,
    }),
  ) {
    this.timer = new TimerSlot(core.clock, () => this.fire());
  }

  start(): void {
    this.core.events.on('rearm', () => {
      const s = this.core.state;
      this.timer.at(s.generator_running ? s.scheduled_stop_at : null);
    });
    this.core.events.on('runClosed', () => {
      this.extended = false;
      this.timer.cancel();
    });
  }

  stop(): void {
    this.timer.cancel();
  }

  /** A held exercise run ends as soon as a reading says so (the tick runs on every source reading). */
  async decide(): Promise<boolean> {
    if (!this.extended) return false;
    if (!this.pastDuration()) {
      this.extended = false;
      return false;
    }
    return this.endOrHold();
  }

  private pastDuration(): boolean {
    const s = this.core.state;
    return s.generator_running && s.scheduled_stop_at !== null && s.scheduled_stop_at <= this.core.now;
  }

  private fire(): void {
    const core = this.core;
    void core.serial
      .run(async () => {
        if (!core.state.generator_running || core.state.scheduled_stop_at === null) return;
        if (core.state.scheduled_stop_at > core.now) return core.rearmTimers();
        if (await this.endOrHold()) await core.evaluate();
      })
      .catch((err) => core.deps.logger.error({ err }, 'auto-stop failed'));
  }

  /** Past the duration: stop, or keep an exercise run going while its battery is not full. True: stopped. */
  private async endOrHold(): Promise<boolean> {
    const core = this.core;
    const reason = core.state.scheduled_stop_reason ?? 'scheduled_end';
    const decision: ExerciseHold =
      reason === 'exercise_end' && core.state.run_trigger === 'exercise'
        ? this.exerciseHold()
        : { hold: false, note: 'duration reached', value: null };
    if (decision.hold) {
      if (!this.extended)
        core.deps.logger.info(
          { until: decision.until },
          'exercise duration reached: running on until the battery is full',
        );
      this.extended = true;
      this.timer.at(decision.until);
      return false;
    }
    this.extended = false;
    await core.doStop(reason, { who: 'scheduler', from: 'auto-stop' }, decision.note, decision.value);
    return true;
  }
}
