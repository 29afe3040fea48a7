/** The part of @outpost/runtime's Clock a ticker needs (structurally compatible with it). */
export interface TickerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface Ticker {
  stop(): void;
  readonly running: boolean;
}

/**
 * Calls `onTick(nowMs, n)` for n = 1, 2, ... at `start + n * periodMs`. Each wait is computed from
 * the absolute slot time rather than chained from the previous timer, so timer lateness never
 * accumulates into drift. After a stall the missed slots are skipped, not fired in a burst.
 * An exception from onTick does not stop the ticker.
 */
export function startTicker(
  clock: TickerClock,
  onTick: (nowMs: number, n: number) => void,
  periodMs = 1000,
  onError?: (err: unknown) => void,
): Ticker {
  if (!(periodMs > 0)) throw new RangeError('periodMs must be > 0');
  const start = clock.now();
  let n = 0;
  let handle: unknown = null;
  let running = true;

  const schedule = (): void => {
    if (!running) return;
    const now = clock.now();
    n += 1;
    let due = start + n * periodMs;
    if (due <= now - periodMs) {
      // More than a whole period late: jump to the next slot still ahead of us.
      n = Math.floor((now - start) / periodMs) + 1;
      due = start + n * periodMs;
    }
    handle = clock.setTimeout(fire, Math.max(0, due - now));
  };

  const fire = (): void => {
    if (!running) return;
    try {
      onTick(clock.now(), n);
    } catch (err) {
      onError?.(err);
    }
    schedule();
  };

  schedule();

  return {
    stop() {
      running = false;
      if (handle !== null) clock.clearTimeout(handle);
      handle = null;
    },
    get running() {
      return running;
    },
  };
}
