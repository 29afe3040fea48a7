import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../src/gateway/rate-window.js';

describe('FixedWindowLimiter', () => {
  const at = (start: number) => {
    const clock = { now: start };
    return { clock, now: () => clock.now };
  };

  it('lets `points` requests through per window, then gives the rest of the window to wait', () => {
    const { clock, now } = at(1_000);
    const limiter = new FixedWindowLimiter(3, 1000, now);
    expect([limiter.consume('a'), limiter.consume('a'), limiter.consume('a')]).toEqual([0, 0, 0]);
    clock.now += 400;
    expect(limiter.consume('a')).toBe(600);
    // Another client has its own window.
    expect(limiter.consume('b')).toBe(0);
    clock.now += 599;
    expect(limiter.consume('a')).toBe(1);
    clock.now += 1;
    expect(limiter.consume('a')).toBe(0);
  });

  it('counts refused requests too, and does not stretch the window for them', () => {
    const { clock, now } = at(0);
    const limiter = new FixedWindowLimiter(1, 1000, now);
    expect(limiter.consume('a')).toBe(0);
    for (let i = 1; i <= 5; i++) {
      clock.now += 100;
      expect(limiter.consume('a')).toBe(1000 - 100 * i);
    }
    clock.now = 1000;
    expect(limiter.consume('a')).toBe(0);
  });

  it('forgets clients whose window ended, so memory follows the clients of the last window', () => {
    const { clock, now } = at(0);
    const limiter = new FixedWindowLimiter(5, 1000, now);
    for (let i = 0; i < 100; i++) limiter.consume(`10.0.0.${i}`);
    expect(limiter.size).toBe(100);
    clock.now = 1000;
    limiter.consume('10.0.1.1');
    expect(limiter.size).toBe(1);
  });
});
