import type { FinishedRuns } from '../domain/controller-core.js';

export interface Completed {
  seconds: number;
  gallonsSinceReset: number;
  resetAt: number | null;
}

/** What the totals follow on the controller. */
export interface TotalsSource {
  readonly finishedRuns: Readonly<FinishedRuns>;
  /** The fuel counter's reset instant: runs that stopped after it count toward the fuel figure. */
  readonly resetAt: number | null;
  /** Writes not committed yet: a finished run is in the database only once they are done. */
  readonly pendingWrites: number;
}

/**
 * Totals of the completed runs, read from the database once and then kept by adding each run this
 * process finishes, so a run's end costs no query. The database is read again after a fuel reset,
 * or when more than one run ended between two looks.
 */
export class CompletedTotals {
  private totals: (Completed & { through: number }) | null = null;

  constructor(
    private readonly source: TotalsSource,
    private readonly read: (resetAt: number | null) => Promise<{ seconds: number; gallonsSince: number }>,
  ) {}

  /** True while the totals miss a finished run or a reset. */
  get behind(): boolean {
    const t = this.totals;
    return !t || t.resetAt !== this.source.resetAt || t.through !== this.source.finishedRuns.count;
  }

  /** Up-to-date totals, or the last known ones while a finished run is still being written. */
  async current(): Promise<Completed | null> {
    const { finishedRuns, resetAt, pendingWrites } = this.source;
    const t = this.totals;
    if (t && t.resetAt === resetAt) {
      if (t.through === finishedRuns.count) return t;
      const last = finishedRuns.last;
      if (last && t.through === finishedRuns.count - 1) {
        const counts = resetAt === null || last.stop_time > resetAt;
        this.totals = {
          seconds: t.seconds + last.duration_seconds,
          gallonsSinceReset: t.gallonsSinceReset + (counts ? last.fuel_gallons : 0),
          resetAt,
          through: finishedRuns.count,
        };
        return this.totals;
      }
    }
    if (pendingWrites > 0) return t;
    const through = finishedRuns.count;
    const read = await this.read(resetAt);
    // A run that ended during the read may or may not be in it: read again next time.
    const settled = this.source.finishedRuns.count === through;
    this.totals = {
      seconds: read.seconds,
      gallonsSinceReset: read.gallonsSince,
      resetAt,
      through: settled ? through : -1,
    };
    return this.totals;
  }
}
