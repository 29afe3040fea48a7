// Time comes from @outpost/runtime's light clock entry, which loads no server code, so the domain
// stays free of transport while every service shares one Clock and one TimerSlot.
export type { Clock } from '@outpost/runtime/clock';
export { TimerSlot } from '@outpost/runtime/clock';

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
