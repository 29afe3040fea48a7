import { estimateFuel } from './fuel.js';

/** What the meters show at one instant: completed runs plus the runs going now. */
export interface MeterReading {
  /** Seconds of every run, commanded and external, the ones going now included. */
  run_seconds: number;
  /** Gallons of the runs that count toward the fuel figure since its last reset, the current run included. */
  fuel_gallons: number;
}

/** A run going now, as the meters see it. */
export interface OpenMeterRun {
  start: number;
  /** Gallons per hour (0 for an external run, whose fuel is not estimated). */
  gph: number;
}

/**
 * The one source of truth for the run meters (HA's total_increasing run hours and fuel used, and
 * the Prometheus run-seconds counter). Completed totals are read from the database once at boot,
 * after the orphaned runs are closed, and from then on every run is added in the same synchronous
 * step that ends it, so no reader can see a run neither running nor counted, or counted twice.
 * A run's fuel counts toward the figure when it stops after the last reset (the database's rule):
 * the run going now counts the same way, from the instant after the reset on.
 *
 * A run going now shows floor(elapsed seconds), which is what its record gets when it stops at the
 * same or a later instant: with a clock that never goes back, the reading never goes down, except
 * fuel at a reset (HA reads that drop as a new meter cycle, which is what a reset is).
 */
export class RunMeters {
  private seconds = 0;
  private gallons = 0;
  private resetAt: number | null = null;
  private external: OpenMeterRun | null = null;

  /** The database's totals at boot (every completed run; fuel of those stopped after resetAt). */
  load(totals: { seconds: number; gallonsSince: number }, resetAt: number | null): void {
    this.seconds = totals.seconds;
    this.gallons = totals.gallonsSince;
    this.resetAt = resetAt;
    this.external = null;
  }

  /** An external run began (the commanded one is read from the state row, which says when it started). */
  externalStarted(run: OpenMeterRun): void {
    this.external = run;
  }

  /**
   * A run ended with the figures its record gets. Called in the same synchronous step in which the
   * run stops showing as open (the state row's generator_running, or the external run's end).
   */
  runEnded(stopTime: number, durationSeconds: number, fuelGallons: number, external = false): void {
    if (external) this.external = null;
    this.seconds += durationSeconds;
    if (this.counts(stopTime)) this.gallons += fuelGallons;
  }

  fuelReset(at: number): void {
    this.resetAt = at;
    this.gallons = 0;
  }

  /** The reading at `now`, with the commanded run going now (if any) and the open external run. */
  read(now: number, commanded: OpenMeterRun | null): MeterReading {
    let seconds = this.seconds;
    let gallons = this.gallons;
    for (const run of [commanded, this.external]) {
      if (!run) continue;
      const elapsed = Math.max(0, Math.floor((now - run.start) / 1000));
      seconds += elapsed;
      if (this.counts(now)) gallons += estimateFuel(elapsed, run.gph);
    }
    return { run_seconds: seconds, fuel_gallons: Math.round(gallons * 1000) / 1000 };
  }

  private counts(at: number): boolean {
    return this.resetAt === null || at > this.resetAt;
  }
}
