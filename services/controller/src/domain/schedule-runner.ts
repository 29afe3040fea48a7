import { generator } from '@outpost/contracts';
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
 * A timer may fire this much before the instant it was set for and still count as that instant: libuv
 * counts on a monotonic clock while the schedule reads the wall clock, which NTP slews. A timer that
 * comes earlier than this is set again for the time left.
 */
export const EARLY_FIRE_MS = 2_000;
/**
 * After a late wake-up (a suspended process, a loaded machine) a schedule whose minute passed at most
 * this long ago still starts; one due earlier is recorded as skipped (missed), never dropped.
 */
export const CATCH_UP_MS = 15 * 60_000;
/** At most this many missed minutes of one schedule are recorded after a long sleep (a week's worth). */
const MAX_MISSED = 7;

/** A schedule's definition as its timing sees it: a change to it starts the watch over. */
const timingKey = (s: ScheduleDef) => `${[...s.days_of_week].sort().join(',')}@${s.start_time}`;

/**
 * Fires weekly schedules and the exercise schedule at their times (time zone aware, injected clock).
 * Each weekly schedule has a watch mark: every minute it is due after that mark and up to the instant
 * the timer was set for gets exactly one record, started or skipped with its reason, and only then does
 * the mark move. So a timer that fires a moment early still runs its minute, and one that fires late
 * catches up (within CATCH_UP_MS; older minutes are recorded as missed). Runs missed while the
 * controller was down are not caught up: the marks start when the runner first sees a schedule.
 */
export class ScheduleRunner {
  private schedules: ScheduleDef[] = [];
  private exerciseDef: ExerciseDef | null = null;
  private readonly timer: TimerSlot;
  private stopped = false;
  /** Per schedule id: its timing, and the instant up to which its due minutes have been handled. */
  private readonly watched = new Map<number, { key: string; since: number }>();
  /** The instant the timer was last set for. */
  private armedFor: number | null = null;
  private firing: Promise<void> | null = null;

  constructor(
    private readonly deps: {
      clock: Clock;
      store: ScheduleStore;
      controller: GeneratorController;
      logger: DomainLogger;
      timezone: string;
    },
  ) {
    this.timer = new TimerSlot(deps.clock, () => {
      this.firing = this.fire().finally(() => {
        this.firing = null;
      });
    });
  }

  /** Re-reads the schedules (after any change through the API) and re-arms the timer. */
  async reload(): Promise<void> {
    // A firing in progress owns the marks; its own reload follows it.
    if (this.firing) await this.firing;
    await this.load();
    this.arm();
  }

  private async load(): Promise<void> {
    this.schedules = await this.deps.store.enabledSchedules();
    this.exerciseDef = await this.deps.store.exercise();
    const now = this.deps.clock.now();
    const ids = new Set(this.schedules.map((s) => s.id));
    for (const id of [...this.watched.keys()]) if (!ids.has(id)) this.watched.delete(id);
    for (const s of this.schedules) {
      const key = timingKey(s);
      const w = this.watched.get(s.id);
      // New or retimed: its minutes count from now, not from the last firing.
      if (!w || w.key !== key) this.watched.set(s.id, { key, since: now });
    }
    const ex = this.exerciseDef;
    this.deps.controller.setExerciseUntilFull(
      ex?.until_battery_full
        ? {
            full_soc: ex.battery_full_soc,
            max_minutes: generator.exerciseRunCap(ex),
          }
        : null,
    );
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
    const candidates: number[] = [];
    for (const s of this.schedules) {
      const since = this.watched.get(s.id)?.since ?? this.deps.clock.now();
      const next = nextWeekly(s.days_of_week, s.start_time, this.deps.timezone, since);
      if (next !== null) candidates.push(next);
    }
    const ex = this.exerciseDef;
    if (ex?.enabled && ex.next_exercise_at !== null) candidates.push(ex.next_exercise_at);
    this.armedFor = candidates.length ? Math.min(...candidates) : null;
    this.timer.at(this.armedFor);
  }

  private async fire(): Promise<void> {
    const now = this.deps.clock.now();
    const target = this.armedFor;
    if (target !== null && target - now > EARLY_FIRE_MS) {
      // Far too early against the wall clock: wait for the rest.
      this.timer.at(target);
      return;
    }
    // What is due is judged at the instant the timer was set for, or now when it came late.
    const upTo = Math.max(now, target ?? now);
    try {
      for (const s of this.schedules) {
        const w = this.watched.get(s.id);
        if (!w) continue;
        const due = this.dueMinutes(s, w.since, upTo);
        w.since = upTo;
        for (const [i, at] of due.entries()) {
          const last = i === due.length - 1;
          if (last && now - at <= CATCH_UP_MS) await this.runSchedule(s, now);
          else await this.record(s, now, `skipped: missed (due ${new Date(at).toISOString()})`);
        }
      }
      const ex = this.exerciseDef;
      if (ex?.enabled && ex.next_exercise_at !== null && ex.next_exercise_at <= upTo)
        await this.runExercise(ex, now);
    } catch (err) {
      this.deps.logger.error({ err }, 'schedule execution failed');
    }
    await this.load().catch((err) => this.deps.logger.error({ err }, 'schedule reload failed'));
    this.arm();
  }

  /** The schedule's minutes after `since` up to `upTo`, the last MAX_MISSED of them. */
  private dueMinutes(s: ScheduleDef, since: number, upTo: number): number[] {
    const due: number[] = [];
    let t = nextWeekly(s.days_of_week, s.start_time, this.deps.timezone, since);
    while (t !== null && t <= upTo) {
      due.push(t);
      if (due.length > MAX_MISSED) due.shift();
      t = nextWeekly(s.days_of_week, s.start_time, this.deps.timezone, t);
    }
    return due;
  }

  /** A schedule's result; a failed write is logged, and the other schedules still get theirs. */
  private async record(s: ScheduleDef, at: number, result: string): Promise<void> {
    if (result.startsWith('skipped')) {
      this.deps.logger.warn({ schedule_id: s.id, name: s.name, result }, 'scheduled run skipped');
    }
    try {
      await this.deps.store.recordScheduleResult(s.id, at, result);
    } catch (err) {
      this.deps.logger.error({ err, schedule_id: s.id, result }, 'scheduled run result not written');
    }
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
    }
    await this.record(s, now, result);
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
