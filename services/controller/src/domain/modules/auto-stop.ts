import { TimerSlot } from '../clock.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';

/** Ends a run that was started for a duration (schedules, exercise, timed manual runs). */
export class AutoStop implements ControllerModule {
  private readonly timer: TimerSlot;

  constructor(private readonly core: ModuleHost) {
    this.timer = new TimerSlot(core.clock, () => this.fire());
  }

  start(): void {
    this.core.events.on('rearm', () => {
      const s = this.core.state;
      this.timer.at(s.generator_running ? s.scheduled_stop_at : null);
    });
    this.core.events.on('runClosed', () => this.timer.cancel());
  }

  stop(): void {
    this.timer.cancel();
  }

  private fire(): void {
    const core = this.core;
    void core.serial
      .run(async () => {
        const reason = core.state.scheduled_stop_reason ?? 'scheduled_end';
        if (!core.state.generator_running || core.state.scheduled_stop_at === null) return;
        if (core.state.scheduled_stop_at > core.now) return core.rearmTimers();
        await core.doStop(reason, { who: 'scheduler', from: 'auto-stop' }, 'duration reached');
        await core.evaluate();
      })
      .catch((err) => core.deps.logger.error({ err }, 'auto-stop failed'));
  }
}
