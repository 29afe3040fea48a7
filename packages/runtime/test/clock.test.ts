import { describe, expect, it } from 'vitest';
import { ManualClock, TimerSlot } from '../src/clock.js';

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

describe('TimerSlot', () => {
  it('re-arming replaces the deadline, and cancel clears it', () => {
    const clock = new ManualClock(0);
    let fired = 0;
    const slot = new TimerSlot(clock, () => fired++);
    slot.at(100);
    slot.at(300);
    expect(slot.pending).toBe(300);
    clock.advance(200);
    expect(fired).toBe(0);
    clock.advance(100);
    expect(fired).toBe(1);
    expect(slot.pending).toBeNull();
    slot.at(500);
    slot.cancel();
    clock.advance(1000);
    expect(fired).toBe(1);
    expect(clock.pending()).toBe(0);
  });
});
