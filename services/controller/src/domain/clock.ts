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

/** Runs async sections one at a time, in call order. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
