import { TimerSlot } from '../clock.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { cooldownRemainingSeconds } from '../limits.js';

/** A standing request refused for cooldown is asked again the moment the cooldown ends. */
export class Cooldown implements ControllerModule {
  private readonly timer: TimerSlot;

  constructor(private readonly core: ModuleHost) {
    this.timer = new TimerSlot(core.clock, () => core.reevaluateSoon());
  }

  start(): void {
    this.core.events.on('rearm', () => {
      const s = this.core.state;
      this.timer.at(cooldownRemainingSeconds(s, this.core.now) > 0 ? s.cooldown_until : null);
    });
  }

  stop(): void {
    this.timer.cancel();
  }
}
