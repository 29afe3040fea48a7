/**
 * Time as a dependency. Every timeout and schedule reads a Clock so tests of a 30 s failsafe or a
 * 480 min runtime limit advance time instead of waiting for it.
 */
export type TimerHandle = { readonly __timer: unique symbol } | object;

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  // unknown, not TimerHandle: callers keep handles in fields typed unknown and clear them as they are.
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (h) => {
    if (h) clearTimeout(h as NodeJS.Timeout);
  },
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => {
    if (h) clearInterval(h as NodeJS.Timeout);
  },
};

/** One timer slot: arming it again replaces the previous deadline. */
export class TimerSlot {
  private handle: TimerHandle | null = null;
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

interface ManualTimer {
  id: number;
  due: number;
  fn: () => void;
  every: number | null;
}

/** A clock that only moves when told to; due timers fire in order, synchronously, inside advance(). */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private timers = new Map<number, ManualTimer>();

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.add(fn, ms, null);
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.add(fn, ms, Math.max(1, ms));
  }

  clearTimeout(handle: unknown): void {
    if (handle && typeof (handle as { id?: unknown }).id === 'number') {
      this.timers.delete((handle as { id: number }).id);
    }
  }

  clearInterval(handle: unknown): void {
    this.clearTimeout(handle);
  }

  /** Moves time forward by ms, firing every timer that falls due on the way. */
  advance(ms: number): void {
    this.set(this.current + ms);
  }

  /** Moves time to an absolute instant (never backwards), firing due timers in order. */
  set(targetMs: number): void {
    for (;;) {
      let next: ManualTimer | undefined;
      for (const t of this.timers.values()) {
        if (t.due <= targetMs && (!next || t.due < next.due || (t.due === next.due && t.id < next.id)))
          next = t;
      }
      if (!next) break;
      this.current = Math.max(this.current, next.due);
      if (next.every !== null) next.due += next.every;
      else this.timers.delete(next.id);
      next.fn();
    }
    this.current = Math.max(this.current, targetMs);
  }

  /** Number of pending timers, for assertions that nothing is left scheduled. */
  pending(): number {
    return this.timers.size;
  }

  private add(fn: () => void, ms: number, every: number | null): TimerHandle {
    const timer: ManualTimer = { id: this.nextId++, due: this.current + Math.max(0, ms), fn, every };
    this.timers.set(timer.id, timer);
    return { id: timer.id };
  }
}

/**
 * `p`, or a rejection with `message` once `ms` of real time have passed: a deadline on I/O (a broker
 * that does not acknowledge), not a schedule, so it reads no Clock.
 */
export function withTimeout<T>(p: Promise<T>, ms: number, message = 'timeout'): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(message)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/**
 * The system clock with a monotonic `now()`: Unix ms at process start plus the monotonic time since.
 * A wall clock that NTP steps after boot (a Pi has no real-time clock) moves nothing that reads it, so
 * a safety deadline can neither fire early nor be pushed back by a clock change.
 */
export const monotonicClock: Clock = {
  ...systemClock,
  now: () => Math.floor(performance.timeOrigin + performance.now()),
};
