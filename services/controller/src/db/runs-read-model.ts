import type { Db } from './connection.js';
import { fuelSince, runHistory, runStats, runTotals } from './run-queries.js';

/** Read-only views of the run history for the API; writes go through the controller's repository. */
export class RunsReadModel {
  constructor(private readonly db: Db) {}

  /** Newest runs first, optionally of one trigger, with the number of matching runs in all. */
  history(limit: number, trigger?: string) {
    return runHistory(this.db, limit, trigger);
  }

  /** Completed runs that started within the `days` days before `now`. */
  stats(days: number, now: number) {
    return runStats(this.db, days, now);
  }

  /** Fuel and runtime of the runs completed after `since` (all completed runs when null). */
  fuelSince(since: number | null) {
    return fuelSince(this.db, since);
  }

  /** Run seconds of every completed run and fuel of those completed after resetAt (the HA totals). */
  totals(resetAt: number | null) {
    return runTotals(this.db, resetAt);
  }
}
