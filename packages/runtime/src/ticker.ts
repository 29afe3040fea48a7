import type { Clock } from './clock.js';

/** The part of a Clock a ticker needs. */
export type TickerClock = Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>;

export interface Ticker {
  stop(): void;
  readonly running: boolean;
}

/**
 * Calls `onTick(nowMs, n)` for n = 1, 2, ... at `start + n * periodMs + phaseMs`. Each wait is
 * computed from the absolute slot time rather than chained from the previous timer, so timer
 * lateness never accumulates into drift. A slot whose time has already passed when the next one is
 * scheduled is skipped (n jumps past it), so a stall never fires two ticks back to back.
 * An exception from onTick goes to onError and does not stop the ticker.
 */
export function startTicker(
  clock: TickerClock,
  onTick: (nowMs: number, n: number) => void,
  periodMs = 1000,
  onError?: (err: unknown) => void,
  /** Shifts every tick by this much (negative: earlier), e.g. to prepare work due on the grid. */
  phaseMs = 0,
): Ticker {
  if (!(periodMs > 0)) throw new RangeError('periodMs must be > 0');
  const start = clock.now();
  let n = 0;
  let handle: unknown = null;
  let running = true;

  const schedule = (): void => {
    if (!running) return;
    const now = clock.now();
    n = Math.max(n + 1, Math.floor((now - start - phaseMs) / periodMs) + 1);
    handle = clock.setTimeout(fire, Math.max(0, start + n * periodMs + phaseMs - now));
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
