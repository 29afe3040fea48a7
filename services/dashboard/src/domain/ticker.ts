/** The part of @outpost/runtime's Clock a ticker needs. */
export interface TickClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: never): void;
}

export interface Ticker {
  stop(): void;
}

/**
 * Calls onTick at start + n·period (+ phase) on the clock's time line: a late tick does not push the next one
 * back (no drift), and a tick missed entirely is skipped rather than fired twice in a row.
 */
export function startTicker(
  clock: TickClock,
  onTick: (nowMs: number) => void,
  periodMs = 1000,
  onError: (err: unknown) => void = () => {},
  /** Shifts every tick by this much (negative: earlier), e.g. to prepare work due on the grid. */
  phaseMs = 0,
): Ticker {
  const origin = clock.now();
  let n = 0;
  let handle: unknown = null;
  let stopped = false;

  const schedule = () => {
    if (stopped) return;
    const now = clock.now();
    n = Math.max(n + 1, Math.floor((now - origin - phaseMs) / periodMs) + 1);
    handle = clock.setTimeout(fire, Math.max(0, origin + n * periodMs + phaseMs - now));
  };
  const fire = () => {
    try {
      onTick(clock.now());
    } catch (err) {
      onError(err);
    }
    schedule();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      if (handle !== null) clock.clearTimeout(handle as never);
      handle = null;
    },
  };
}
