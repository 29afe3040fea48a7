/**
 * A per-key fixed-window counter: `points` requests per `durationMs`, the window opening at a key's
 * first request. The same rule as rate-limiter-flexible's memory limiter (a refused request still
 * counts; the wait is the rest of the window), held without a promise, a result object or a timer per
 * key: the read path asks it on every /api request, for thousands of client addresses.
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private nextSweep = 0;

  constructor(
    private readonly points: number,
    private readonly durationMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `key`; returns 0 when it is within the limit, else ms until the window ends. */
  consume(key: string): number {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now);
    let w = this.windows.get(key);
    if (w === undefined || w.resetAt <= now) {
      w = { count: 0, resetAt: now + this.durationMs };
      this.windows.set(key, w);
    }
    w.count += 1;
    return w.count > this.points ? w.resetAt - now : 0;
  }

  /** Drops ended windows once per window length, so memory follows the clients of the last window. */
  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
    this.nextSweep = now + this.durationMs;
  }

  /** Keys with a window open (tests). */
  get size(): number {
    return this.windows.size;
  }
}
