import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { startTicker, type TickerClock } from '../src/ticker.js';

const START = Date.UTC(2026, 10, 21, 12, 0, 0, 123);

/** A clock whose timers fire late by a deterministic 0..49 ms, like a busy event loop. */
function jitteryClock(base: ManualClock): TickerClock {
  let k = 0;
  return {
    now: () => base.now(),
    setTimeout: (fn, ms) => base.setTimeout(fn, ms + ((k++ * 37) % 50)),
    clearTimeout: (h) => base.clearTimeout(h as never),
  };
}

describe('1 Hz ticker', () => {
  it('fires at start + n*1000 exactly on a punctual clock', () => {
    const clock = new ManualClock(START);
    const times: number[] = [];
    const t = startTicker(clock, (now) => times.push(now));
    clock.advance(5000);
    expect(times).toEqual([1, 2, 3, 4, 5].map((n) => START + n * 1000));
    t.stop();
  });

  it('does not drift over 10,000 ticks when every timer fires late', () => {
    const clock = new ManualClock(START);
    const ticks: Array<[number, number]> = [];
    const t = startTicker(jitteryClock(clock), (now, n) => ticks.push([now, n]));
    for (let i = 0; i < 10_000; i++) clock.advance(1000);
    t.stop();
    expect(ticks.length).toBeGreaterThanOrEqual(9_999);
    ticks.forEach(([now, n], i) => {
      expect(n).toBe(i + 1);
      const lateness = now - (START + n * 1000);
      expect(lateness).toBeGreaterThanOrEqual(0);
      expect(lateness).toBeLessThan(50); // bounded by one timer's lateness, not accumulated
    });
    const [lastNow, lastN] = ticks.at(-1)!;
    expect(lastN).toBe(ticks.length);
    expect(lastNow - START - lastN * 1000).toBeLessThan(50);
  });

  it('skips slots missed during a stall instead of bursting', () => {
    const clock = new ManualClock(START);
    let stall = true;
    const c: TickerClock = {
      now: () => clock.now(),
      setTimeout: (fn, ms) => {
        const extra = stall ? 3500 : 0;
        stall = false;
        return clock.setTimeout(fn, ms + extra);
      },
      clearTimeout: (h) => clock.clearTimeout(h as never),
    };
    const ticks: Array<[number, number]> = [];
    startTicker(c, (now, n) => ticks.push([now - START, n]));
    clock.advance(7000);
    expect(ticks).toEqual([
      [4500, 1],
      [5000, 5],
      [6000, 6],
      [7000, 7],
    ]);
  });

  it('stops firing after stop()', () => {
    const clock = new ManualClock(START);
    let count = 0;
    const t = startTicker(clock, () => count++);
    clock.advance(2500);
    t.stop();
    expect(t.running).toBe(false);
    clock.advance(10_000);
    expect(count).toBe(2);
  });

  it('keeps ticking when a tick handler throws', () => {
    const clock = new ManualClock(START);
    const errors: unknown[] = [];
    let count = 0;
    startTicker(
      clock,
      () => {
        count++;
        throw new Error('boom');
      },
      1000,
      (e) => errors.push(e),
    );
    clock.advance(3000);
    expect(count).toBe(3);
    expect(errors).toHaveLength(3);
  });
  it('fires on the second grid without drifting, and stops', () => {
    const clock = new ManualClock(1_000_000);
    const at: number[] = [];
    const t = startTicker(clock, (now) => at.push(now - 1_000_000), 1000);
    clock.advance(3000);
    expect(at).toEqual([1000, 2000, 3000]);
    clock.advance(500);
    clock.advance(700);
    expect(at).toEqual([1000, 2000, 3000, 4000]);
    t.stop();
    clock.advance(5000);
    expect(at).toHaveLength(4);
    expect(clock.pending()).toBe(0);
  });

  it('an exception in one tick is reported and the next tick still runs', () => {
    const clock = new ManualClock(0);
    const errors: unknown[] = [];
    let n = 0;
    const t = startTicker(
      clock,
      () => {
        n++;
        if (n === 1) throw new Error('boom');
      },
      1000,
      (e) => errors.push(e),
    );
    clock.advance(2000);
    expect(n).toBe(2);
    expect(errors).toHaveLength(1);
    t.stop();
  });

  it('a negative phase fires that much earlier on every period', () => {
    const clock = new ManualClock(0);
    const at: number[] = [];
    const t = startTicker(clock, (now) => at.push(now), 1000, undefined, -100);
    clock.advance(3000);
    expect(at).toEqual([900, 1900, 2900]);
    t.stop();
  });

  it('skips a slot already past when a tick fires more than a period late, never firing back to back', () => {
    const clock = new ManualClock(START);
    let late = true;
    const c: TickerClock = {
      now: () => clock.now(),
      setTimeout: (fn, ms) => {
        const extra = late ? 1500 : 0;
        late = false;
        return clock.setTimeout(fn, ms + extra);
      },
      clearTimeout: (h) => clock.clearTimeout(h),
    };
    const ticks: Array<[number, number]> = [];
    startTicker(c, (now, n) => ticks.push([now - START, n]));
    clock.advance(4000);
    expect(ticks).toEqual([
      [2500, 1],
      [3000, 3],
      [4000, 4],
    ]);
  });

  it('rejects a period that is not positive', () => {
    expect(() => startTicker(new ManualClock(0), () => {}, 0)).toThrow(RangeError);
  });
});
