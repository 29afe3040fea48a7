import { type Clock, TimerSlot } from '../domain/clock.js';

/**
 * An AC-sense relay chatters as the engine cranks and catches: a new level counts only once it has
 * held for the debounce time (on the injected clock). 0 passes every change at once.
 */
export class Debounced {
  private accepted: boolean | null = null;
  private pending: boolean | null = null;
  private readonly timer: TimerSlot;

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
    private readonly emit: (value: boolean) => void,
  ) {
    this.timer = new TimerSlot(clock, () => {
      const value = this.pending;
      this.pending = null;
      if (value === null || value === this.accepted) return;
      this.accepted = value;
      this.emit(value);
    });
  }

  /** A raw reading; the first one is taken as it is (the level at start is not an edge). */
  set(value: boolean): void {
    if (this.accepted === null || this.ms <= 0) {
      this.timer.cancel();
      this.pending = null;
      if (value !== this.accepted) {
        this.accepted = value;
        this.emit(value);
      }
      return;
    }
    if (value === this.accepted) {
      this.timer.cancel();
      this.pending = null;
      return;
    }
    if (this.pending !== value) {
      this.pending = value;
      this.timer.at(this.clock.now() + this.ms);
    }
  }

  stop(): void {
    this.timer.cancel();
  }
}
