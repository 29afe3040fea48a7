import type { genset } from '@outpost/contracts';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import type { RunningFeedback } from './running-feedback.js';

/**
 * The generator's own controller as the relay node reads it over Modbus (`relaynode/<id>/genset`).
 * Keeps the newest report for the state and GET /api/genset, and hands its running flag to the
 * running feedback. A stale report, or one without a running flag, makes the reading unknown: silence
 * from the module is never taken as "stopped".
 */
export class GensetFollower implements ControllerModule {
  private latest: genset.GensetState | null = null;

  constructor(
    private readonly core: ModuleHost,
    private readonly feedback: RunningFeedback,
  ) {}

  start(): void {}

  /** The newest report; null before the relay node published one. */
  get state(): genset.GensetState | null {
    return this.latest;
  }

  reported(state: genset.GensetState): Promise<void> {
    this.latest = state;
    this.core.deps.bus.stateChanged();
    const running = state.stale ? null : state.running;
    return running === null ? this.feedback.unknown('genset') : this.feedback.report('genset', running);
  }
}
