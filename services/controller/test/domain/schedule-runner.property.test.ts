import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/domain/clock.js';
import { DomainError } from '../../src/domain/errors.js';
import type { GeneratorController } from '../../src/domain/generator-controller.js';
import {
  type ExerciseDef,
  ScheduleRunner,
  type ScheduleDef,
  type ScheduleStore,
} from '../../src/domain/schedule-runner.js';
import { nextWeekly } from '../../src/domain/schedule-time.js';

/**
 * A wall clock whose timers do not fire when they were set for: each fires early or late by the next
 * skew of a cycle, as libuv's monotonic timers do against a wall clock that NTP slews (early) or on a
 * loaded machine or after a suspend (late). Time moves only when the test moves it.
 */
class SkewClock implements Clock {
  private current: number;
  private nextId = 1;
  private turn = 0;
  private readonly timers = new Map<number, { due: number; fn: () => void }>();

  constructor(
    start: number,
    private readonly skews: readonly number[],
  ) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Time spent doing something (a database round trip). */
  spend(ms: number): void {
    this.current += ms;
  }

  setTimeout(fn: () => void, ms: number): object {
    const skew = this.skews[this.turn++ % this.skews.length] ?? 0;
    const id = this.nextId++;
    // A timer never fires before the moment it was set.
    this.timers.set(id, { due: Math.max(this.current, this.current + ms + skew), fn });
    return { id };
  }

  clearTimeout(handle: unknown): void {
    if (handle && typeof handle === 'object' && 'id' in handle) this.timers.delete(handle.id as number);
  }

  setInterval(): object {
    throw new Error('the schedule runner sets no interval');
  }

  clearInterval(handle: unknown): void {
    this.clearTimeout(handle);
  }

  /** The next timer due at or before `until`, taken off the list, with the clock moved to it. */
  take(until: number): (() => void) | null {
    let best: [number, { due: number; fn: () => void }] | null = null;
    for (const entry of this.timers) if (!best || entry[1].due < best[1].due) best = entry;
    if (!best || best[1].due > until) return null;
    this.timers.delete(best[0]);
    this.current = Math.max(this.current, best[1].due);
    return best[1].fn;
  }
}

/** Lets every promise the runner awaits settle (the store below answers on microtasks). */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** Time zones that change their clocks (two hemispheres, a midnight change, a half-hour one) and UTC. */
const ZONES = [
  'Europe/Berlin',
  'Europe/London',
  'America/New_York',
  'America/Havana',
  'America/Santiago',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Pacific/Auckland',
  'UTC',
] as const;

/** Starts a few days before 2026's DST changes in both hemispheres, so the runs cross them. */
const STARTS = [
  Date.UTC(2026, 2, 4), // Havana, Santiago (April), Sydney (April)
  Date.UTC(2026, 2, 25), // Europe's spring forward on 29 March
  Date.UTC(2026, 2, 31), // Sydney, Lord Howe, Auckland fall back on 5 April
  Date.UTC(2026, 8, 22), // Auckland springs forward on 27 September
  Date.UTC(2026, 9, 20), // Europe falls back on 25 October
  Date.UTC(2026, 9, 28), // New York and Havana fall back on 1 November
];

const HOURS = 24 * 3_600_000;
/** Each generated site runs this long; its weekly schedules come due 0 to 10 times in it. */
const SPAN = 10 * HOURS;

const hhmm = fc
  .tuple(
    // Half the times fall in the hours the clocks change (00:00–03:59).
    fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 23 })),
    fc.integer({ min: 0, max: 59 }),
  )
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

const schedule = fc.record({
  days_of_week: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
  start_time: hhmm,
});

const site = fc.record({
  zone: fc.constantFrom(...ZONES),
  start: fc.constantFrom(...STARTS).chain((d) => fc.integer({ min: d, max: d + 2 * HOURS })),
  schedules: fc.array(schedule, { minLength: 1, maxLength: 3 }),
  /** The four ways a timer misses its moment, in a generated order. */
  skews: fc.shuffledSubarray([-1, -50, -900, 5_000], { minLength: 4, maxLength: 4 }),
  /** Milliseconds a database round trip takes. */
  latency: fc.integer({ min: 0, max: 40 }),
  /** Which starts the controller refuses (not armed): recorded as skipped, never dropped. */
  refusals: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
});

interface Recorded {
  id: number;
  at: number;
  result: string;
}

let schedulesSeen = 0;

type Site = typeof site extends fc.Arbitrary<infer T> ? T : never;

async function runSite(v: Site): Promise<void> {
  const clock = new SkewClock(v.start, v.skews);
  const defs: ScheduleDef[] = v.schedules.map((s, i) => ({
    id: i + 1,
    name: `s${i + 1}`,
    days_of_week: s.days_of_week,
    start_time: s.start_time,
    duration_minutes: 5,
    enabled: true,
  }));
  schedulesSeen += defs.length;
  const records: Recorded[] = [];
  const store: ScheduleStore = {
    enabledSchedules: async () => {
      clock.spend(v.latency);
      return defs;
    },
    recordScheduleResult: async (id, at, result) => {
      clock.spend(v.latency);
      records.push({ id, at, result });
    },
    exercise: async (): Promise<ExerciseDef | null> => null,
    recordExerciseResult: async () => undefined,
  };
  let calls = 0;
  const controller = {
    start: async () => {
      clock.spend(v.latency);
      if (v.refusals[calls++ % v.refusals.length])
        throw new DomainError('not_armed', 'Cannot start - automation is not armed');
      return {};
    },
    setExerciseUntilFull: () => undefined,
  } as unknown as GeneratorController;
  const runner = new ScheduleRunner({
    clock,
    store,
    controller,
    logger: { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never,
    timezone: v.zone,
  });
  await runner.reload();
  const watchFrom = clock.now();
  // Ends half a minute past a minute, and runs on past the latest a late timer can come.
  const end = Math.floor((v.start + SPAN) / 60_000) * 60_000 + 30_000;
  for (;;) {
    const fire = clock.take(end + 10_000);
    if (!fire) break;
    fire();
    await settle();
  }
  runner.stop();

  for (const d of defs) {
    const due: number[] = [];
    for (
      let t = nextWeekly(d.days_of_week, d.start_time, v.zone, watchFrom);
      t !== null && t <= end;
      t = nextWeekly(d.days_of_week, d.start_time, v.zone, t)
    )
      due.push(t);
    const mine = records.filter((r) => r.id === d.id);
    // Exactly one record for each due minute: never none, never two.
    expect(mine.map((r) => r.at).length, `${d.start_time} ${d.days_of_week} in ${v.zone}`).toBe(due.length);
    mine.forEach((r, i) => {
      const late = r.at - (due[i] as number);
      expect(late).toBeGreaterThanOrEqual(-900);
      expect(late).toBeLessThanOrEqual(5_000 + 10 * v.latency);
      expect(r.result).toMatch(/^(started|skipped: not armed)$/);
    });
  }
}

describe('schedule runner on a clock whose timers come early and late (property)', () => {
  it('gives each due minute of 1,000+ generated schedules exactly one record, started or skipped', async () => {
    schedulesSeen = 0;
    await fc.assert(fc.asyncProperty(site, runSite), { numRuns: 600 });
    expect(schedulesSeen).toBeGreaterThanOrEqual(1_000);
  }, 120_000);
});
