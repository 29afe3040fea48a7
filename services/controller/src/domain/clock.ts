/** The injected clock (structurally the runtime's Clock): ms time and timers. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** One timer slot: arming it again replaces the previous deadline. */
export class TimerSlot {
  private handle: unknown = null;
  private deadline: number | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly fire: () => void,
  ) {}

  at(deadline: number | null): void {
    if (deadline === this.deadline && this.handle !== null) return;
    this.cancel();
    if (deadline === null) return;
    this.deadline = deadline;
    this.handle = this.clock.setTimeout(
      () => {
        this.handle = null;
        this.deadline = null;
        this.fire();
      },
      Math.max(0, deadline - this.clock.now()),
    );
  }

  cancel(): void {
    if (this.handle !== null) this.clock.clearTimeout(this.handle);
    this.handle = null;
    this.deadline = null;
  }

  get pending(): number | null {
    return this.deadline;
  }
}

/**
 * Runs one async job with no overlap: calls made while it runs fold into one more run after it. It
 * starts a microtask later, so calls made together count once. A throw ends the runs and goes to
 * onError; run() itself never rejects.
 */
export class Coalesced {
  private current: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly job: () => Promise<void>,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Resolves when the run this call joined, and any asked for meanwhile, has finished. */
  run(): Promise<void> {
    if (this.current) {
      this.again = true;
      return this.current;
    }
    this.current = (async () => {
      await Promise.resolve();
      try {
        do {
          this.again = false;
          await this.job();
        } while (this.again);
      } catch (err) {
        this.onError(err);
      } finally {
        this.current = null;
      }
    })();
    return this.current;
  }
}

/** Runs async sections one at a time, in call order. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
