import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';

describe('ManualClock', () => {
  it('fires due timers in time order and not before', () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 200);
    clock.setTimeout(() => fired.push('a'), 100);
    const h = clock.setTimeout(() => fired.push('never'), 150);
    clock.clearTimeout(h);
    clock.advance(99);
    expect(fired).toEqual([]);
    clock.advance(101);
    expect(fired).toEqual(['a', 'b']);
    expect(clock.now()).toBe(200);
  });

  it('repeats intervals and sees the time of each firing', () => {
    const clock = new ManualClock(1000);
    const at: number[] = [];
    const h = clock.setInterval(() => at.push(clock.now()), 1000);
    clock.advance(3500);
    clock.clearInterval(h);
    clock.advance(5000);
    expect(at).toEqual([2000, 3000, 4000]);
    expect(clock.pending()).toBe(0);
  });
});
