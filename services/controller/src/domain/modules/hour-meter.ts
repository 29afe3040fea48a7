import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { engineHours, HOUR_MS } from '../engine-hours.js';
import type { Actor } from '../types.js';
import type { RunningFeedback } from './running-feedback.js';

/**
 * The engine-hour meter. With a running-feedback source it counts while the feedback says running
 * (commanded or external runs alike); without one, while the relay is commanded ON. The counted
 * stretch is written with the last-alive stamp (AliveStamp), so a crash loses at most one stamp
 * period: the boot reset drops the unwritten stretch rather than guess how long the engine ran.
 */
export class HourMeter implements ControllerModule {
  constructor(
    private readonly core: ModuleHost,
    private readonly feedback: RunningFeedback,
  ) {}

  start(): void {
    this.core.events.on('rearm', () => this.follow());
  }

  /** Engine hours now, including the stretch not yet written. */
  get hours(): number {
    return engineHours(this.core.state, this.core.now);
  }

  /** Sets the meter to the generator's own reading (audited with the value it replaced). */
  set(hours: number, actor: Actor): Promise<number> {
    const core = this.core;
    return core.serial.run(async () => {
      const previous = Math.round(this.hours * 1000) / 1000;
      const s = core.state;
      const next = {
        ...s,
        engine_ms: Math.round(hours * HOUR_MS),
        engine_counting_since: s.engine_counting_since === null ? null : core.now,
      };
      await core.persistNow({
        label: 'hours:set',
        state: next,
        audit: [{ action: 'hour_meter.set', actor, details: { previous_hours: previous, hours } }],
      });
      core.state = next;
      core.afterChange(false);
      return this.hours;
    });
  }

  /**
   * The generator's own controller reported its engine run time: the meter takes it, as if set by
   * hand but without an audit entry (it arrives every poll). Between reports, and once the module
   * goes silent, the meter counts on from it as before. It may go down (the module was replaced or
   * its meter reset): engine_hours is a `total`, not `total_increasing`, for the same reason as
   * PUT /api/health/hour-meter; the run meters (total run hours) are Outpost's own and never follow.
   * Runs inside the caller's serial section; the next state write stores it.
   */
  adoptModule(runTimeSeconds: number): void {
    const s = this.core.state;
    const ms = Math.round(runTimeSeconds * 1000);
    const counted = s.engine_counting_since === null ? s.engine_ms : null;
    if (counted === ms) return;
    this.core.state = {
      ...s,
      engine_ms: ms,
      engine_counting_since: s.engine_counting_since === null ? null : this.core.now,
    };
  }

  private counting(): boolean {
    if (this.feedback.source === 'none') return this.core.state.generator_running;
    return this.feedback.value === true;
  }

  /**
   * Runs synchronously inside whichever serial section changed something: opens or closes the
   * counted stretch in memory. The next state write, at the latest the alive stamp, stores it.
   */
  private follow(): void {
    const core = this.core;
    const s = core.state;
    const counting = this.counting();
    if (counting && s.engine_counting_since === null) {
      const relayMode = this.feedback.source === 'none';
      core.state = {
        ...s,
        engine_counting_since: relayMode ? (s.generator_start_time ?? core.now) : core.now,
      };
    } else if (!counting && s.engine_counting_since !== null) {
      core.state = {
        ...s,
        engine_ms: s.engine_ms + Math.max(0, core.now - s.engine_counting_since),
        engine_counting_since: null,
      };
    }
  }
}
