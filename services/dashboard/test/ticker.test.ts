import { ManualClock } from '@outpost/runtime';
import { describe, expect, it } from 'vitest';
import { startTicker } from '../src/domain/ticker.js';

describe('1 Hz ticker', () => {
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
});
