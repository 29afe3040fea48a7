import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { foldEngine } from '../engine-hours.js';

/**
 * Stamps last_alive_at periodically: the boot after a crash bounds an orphaned run by it. The same
 * write brings the engine-hour meter up to date, so a crash loses at most one period of engine time.
 */
export class AliveStamp implements ControllerModule {
  private timer: unknown = null;

  constructor(private readonly core: ModuleHost) {}

  start(): void {
    this.core.events.on('booted', () => this.begin());
  }

  stop(): void {
    if (this.timer !== null) this.core.clock.clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * The last stamp of a graceful shutdown, after every queued write: the next boot closes a run left
   * open at this instant, so it keeps every second the meters showed for it (a crash loses at most one
   * period instead).
   */
  async final(): Promise<void> {
    const core = this.core;
    // Only a booted controller has a state worth writing (the timer runs from the boot on).
    if (this.timer === null) return;
    // Not in a serial section: one held by a wait on the (injected) clock must not hold the shutdown.
    core.state = foldEngine({ ...core.state, last_alive_at: core.now }, core.now);
    await core.writes.enqueue({ label: 'alive:final', state: core.state }, false).catch(() => undefined);
  }

  private begin(): void {
    const core = this.core;
    const period = core.deps.config.aliveStampMs ?? 60_000;
    this.timer = core.clock.setInterval(() => {
      if (core.writes.backlog > 0) return;
      void core.serial.run(async () => {
        core.state = foldEngine({ ...core.state, last_alive_at: core.now }, core.now);
        await core.writes.enqueue({ label: 'alive', state: core.state }, false).catch(() => undefined);
      });
    }, period);
  }
}
