import type { Clock } from './clock.js';
import { TimerSlot } from './clock.js';
import { DomainError } from './errors.js';
import type { GeneratorController } from './generator-controller.js';
import { nextExercise, nextWeekly } from './schedule-time.js';
import type { DomainLogger } from './types.js';

export interface ScheduleDef {
  id: number;
  name: string;
  days_of_week: number[];
  start_time: string;
  duration_minutes: number;
  enabled: boolean;
}

export interface ExerciseDef {
  enabled: boolean;
  frequency_days: number;
  start_time: string;
  duration_minutes: number;
  until_battery_full: boolean;
  battery_full_soc: number;
  max_duration_minutes: number;
  next_exercise_at: number | null;
}

export interface ScheduleStore {
  enabledSchedules(): Promise<ScheduleDef[]>;
  recordScheduleResult(id: number, at: number, result: string): Promise<void>;
  exercise(): Promise<ExerciseDef | null>;
  recordExerciseResult(at: number, result: string, nextAt: number | null): Promise<void>;
}

/** Skip reasons as the run history shows them. */
const SKIP_REASONS: Record<string, string> = {
  not_armed: 'not armed',
  already_running: 'already running',
  force_stop: 'force_stop',
  lockout: 'lockout',
  quiet: 'quiet',
  cooldown: 'cooldown',
  epo: 'epo',
  relay_unavailable: 'relay node link unavailable',
  db_unavailable: 'database unavailable',
};

export const skipReason = (err: unknown): string =>
  err instanceof DomainError ? (SKIP_REASONS[err.code] ?? err.code) : 'error';

/**
 * Fires weekly schedules and the exercise schedule at their times (time zone aware, injected clock).
 * Runs missed while the controller was down are not caught up.
 */
export class ScheduleRunner {
  private schedules: ScheduleDef[] = [];
  private exerciseDef: ExerciseDef | null = null;
  private readonly timer: TimerSlot;
  private stopped = false;

  constructor(
    private readonly deps: {
      clock: Clock;
      store: ScheduleStore;
      controller: GeneratorController;
      logger: DomainLogger;
      timezone: string;
    },
  ) {
    this.timer = new TimerSlot(deps.clock, () => void this.fire());
  }

  /** Re-reads the schedules (after any change through the API) and re-arms the timer. */
  async reload(): Promise<void> {
    this.schedules = await this.deps.store.enabledSchedules();
    this.exerciseDef = await this.deps.store.exercise();
    const ex = this.exerciseDef;
    this.deps.controller.setExerciseUntilFull(
      ex?.until_battery_full
        ? {
            full_soc: ex.battery_full_soc,
            max_minutes: Math.max(ex.max_duration_minutes, ex.duration_minutes),
          }
        : null,
    );
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.timer.cancel();
  }

  nextFor(s: Pick<ScheduleDef, 'days_of_week' | 'start_time' | 'enabled'>): number | null {
    return s.enabled
      ? nextWeekly(s.days_of_week, s.start_time, this.deps.timezone, this.deps.clock.now())
      : null;
  }

  private arm(): void {
    if (this.stopped) return;
    const candidates = this.schedules.map((s) => this.nextFor(s)).filter((t): t is number => t !== null);
    const ex = this.exerciseDef;
    if (ex?.enabled && ex.next_exercise_at !== null) candidates.push(ex.next_exercise_at);
    this.timer.at(candidates.length ? Math.min(...candidates) : null);
  }

  private async fire(): Promise<void> {
    const now = this.deps.clock.now();
    try {
      // Weekly schedules whose time is this minute.
      for (const s of this.schedules) {
        const due = nextWeekly(s.days_of_week, s.start_time, this.deps.timezone, now - 60_000);
        if (due !== null && due <= now) await this.runSchedule(s, now);
      }
      const ex = this.exerciseDef;
      if (ex?.enabled && ex.next_exercise_at !== null && ex.next_exercise_at <= now)
        await this.runExercise(ex, now);
    } catch (err) {
      this.deps.logger.error({ err }, 'schedule execution failed');
    }
    // Re-arm from one second on so the same minute does not fire twice.
    await this.reload().catch((err) => this.deps.logger.error({ err }, 'schedule reload failed'));
  }

  private async runSchedule(s: ScheduleDef, now: number): Promise<void> {
    let result = 'started';
    try {
      await this.deps.controller.start({
        trigger: 'scheduled',
        actor: { who: 'scheduler', from: `schedule:${s.id}` },
        duration_minutes: s.duration_minutes,
        scheduled_run_id: s.id,
        notes: `schedule: ${s.name}`,
      });
    } catch (err) {
      result = `skipped: ${skipReason(err)}`;
      this.deps.logger.warn(
        { schedule_id: s.id, name: s.name, reason: skipReason(err) },
        'scheduled run skipped',
      );
    }
    await this.deps.store.recordScheduleResult(s.id, now, result);
  }

  private async runExercise(ex: ExerciseDef, now: number): Promise<void> {
    let result = 'started';
    try {
      await this.deps.controller.start({
        trigger: 'exercise',
        actor: { who: 'scheduler', from: 'exercise' },
        duration_minutes: ex.duration_minutes,
        notes: 'exercise',
      });
    } catch (err) {
      result = `skipped: ${skipReason(err)}`;
      this.deps.logger.warn({ reason: skipReason(err) }, 'exercise run skipped');
    }
    const due = ex.next_exercise_at ?? now;
    let next = nextExercise(ex.start_time, this.deps.timezone, ex.frequency_days, due);
    while (next <= now) next = nextExercise(ex.start_time, this.deps.timezone, ex.frequency_days, next);
    await this.deps.store.recordExerciseResult(now, result, next);
  }
}
