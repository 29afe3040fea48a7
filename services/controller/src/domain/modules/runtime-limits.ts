import { TimerSlot } from '../clock.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { systemEvent } from '../events.js';
import { maxRuntimeDeadline } from '../limits.js';
import { type Actor, SYSTEM } from '../types.js';

/**
 * The maximum runtime: stops a run that reached it (the stop sequence then sets lockout and
 * cooldown from the limits), and the acknowledgement that clears the lockout.
 */
export class RuntimeLimits implements ControllerModule {
  private readonly timer: TimerSlot;

  constructor(private readonly core: ModuleHost) {
    this.timer = new TimerSlot(core.clock, () => this.fire());
  }

  start(): void {
    this.core.events.on('rearm', () => {
      const core = this.core;
      this.timer.at(core.hoaHold ? null : maxRuntimeDeadline(core.state, core.settings.limits));
    });
    this.core.events.on('runClosed', () => this.timer.cancel());
  }

  stop(): void {
    this.timer.cancel();
  }

  clearLockout(actor: Actor): Promise<{ cleared: boolean }> {
    const core = this.core;
    return core.serial.run(async () => {
      if (!core.state.lockout_active) {
        // A health alarm kept without a lockout (keep_running policy) is acknowledged here too: no
        // running-feedback message clears it.
        if (core.state.health_alarm === null) return { cleared: false };
        const next = { ...core.state, health_alarm: null };
        await core.persistNow({
          label: 'alarm:acknowledge',
          state: next,
          audit: [{ action: 'alarm.acknowledge', actor, details: { alarm: core.state.health_alarm } }],
        });
        core.state = next;
        core.afterChange(true);
        return { cleared: true };
      }
      const now = core.now;
      // A health alarm that locked out (fail to start, unexpected stop) is acknowledged with it.
      const next = { ...core.state, lockout_active: false, health_alarm: null };
      await core.persistNow({
        label: 'lockout:clear',
        state: next,
        events: () => [
          systemEvent('lockout_cleared', now, 'cleared', `lockout acknowledged by ${actor.who}`),
        ],
        audit: [{ action: 'lockout.clear', actor }],
      });
      core.state = next;
      core.afterChange(true);
      await core.evaluate();
      return { cleared: true };
    });
  }

  private fire(): void {
    const core = this.core;
    void core.serial
      .run(async () => {
        const deadline = maxRuntimeDeadline(core.state, core.settings.limits);
        if (deadline === null || core.hoaHold) return;
        if (deadline > core.now) return core.rearmTimers();
        await core.doStop(
          'max_runtime',
          SYSTEM,
          `maximum runtime of ${core.settings.limits.max_run_minutes} minutes`,
        );
        await core.evaluate();
      })
      .catch((err) => core.deps.logger.error({ err }, 'max-runtime stop failed'));
  }
}
