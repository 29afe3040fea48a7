import { describe, expect, it } from 'vitest';
import type { FinishedRuns } from '../../src/domain/controller-core.js';
import { CompletedTotals, type TotalsSource } from '../../src/ha/completed-totals.js';

/** The controller's side, moved by hand, and a database whose reads are counted. */
function setup(db = { seconds: 3600, gallonsSince: 2 }) {
  const source: { -readonly [K in keyof TotalsSource]: TotalsSource[K] } & { finishedRuns: FinishedRuns } = {
    finishedRuns: { count: 0, last: null },
    resetAt: null,
    pendingWrites: 0,
  };
  const reads: (number | null)[] = [];
  let onRead = () => {};
  const totals = new CompletedTotals(source, async (resetAt) => {
    reads.push(resetAt);
    onRead();
    return db;
  });
  const finish = (stop_time: number, duration_seconds: number, fuel_gallons: number) => {
    source.finishedRuns = {
      count: source.finishedRuns.count + 1,
      last: { stop_time, duration_seconds, fuel_gallons },
    };
  };
  return { source, reads, totals, finish, db, duringRead: (fn: () => void) => (onRead = fn) };
}

// The HA run-hours and fuel sensors follow every finished run without a query per run.
describe('completed-run totals', () => {
  it('reads the database once, then adds each finished run without reading again', async () => {
    const { totals, reads, finish } = setup();
    expect(await totals.current()).toMatchObject({ seconds: 3600, gallonsSinceReset: 2 });
    expect(await totals.current()).toMatchObject({ seconds: 3600 });
    finish(1_000, 600, 0.5);
    expect(totals.behind).toBe(true);
    expect(await totals.current()).toMatchObject({ seconds: 4200, gallonsSinceReset: 2.5 });
    finish(2_000, 60, 0.25);
    expect(await totals.current()).toMatchObject({ seconds: 4260, gallonsSinceReset: 2.75 });
    expect(totals.behind).toBe(false);
    expect(reads).toHaveLength(1);
  });

  it('a fuel reset reads again, and a run that stopped before the reset adds no fuel', async () => {
    const { totals, reads, finish, source, db } = setup();
    await totals.current();
    source.resetAt = 5_000;
    db.gallonsSince = 0;
    expect(await totals.current()).toMatchObject({ seconds: 3600, gallonsSinceReset: 0, resetAt: 5_000 });
    expect(reads).toEqual([null, 5_000]);
    finish(4_000, 30, 1);
    expect(await totals.current()).toMatchObject({ seconds: 3630, gallonsSinceReset: 0 });
    finish(6_000, 30, 1);
    expect(await totals.current()).toMatchObject({ seconds: 3660, gallonsSinceReset: 1 });
  });

  it('two runs finished between looks: reads again once their records are written', async () => {
    const { totals, reads, finish, source, db } = setup();
    await totals.current();
    finish(1_000, 10, 0.1);
    finish(2_000, 20, 0.2);
    source.pendingWrites = 1;
    // The records are not written yet: the last known totals stand.
    expect(await totals.current()).toMatchObject({ seconds: 3600 });
    expect(reads).toHaveLength(1);
    source.pendingWrites = 0;
    db.seconds = 3630;
    expect(await totals.current()).toMatchObject({ seconds: 3630 });
    expect(reads).toHaveLength(2);
  });

  it('a run that ends during the read is not counted twice: the next look reads again', async () => {
    const { totals, reads, finish, duringRead, db } = setup();
    duringRead(() => finish(1_000, 100, 1));
    await totals.current();
    duringRead(() => {});
    db.seconds = 3700;
    expect(await totals.current()).toMatchObject({ seconds: 3700 });
    expect(reads).toHaveLength(2);
  });
});
