import { generator } from '@outpost/contracts';
import { asc, eq } from 'drizzle-orm';
import type { ExerciseDef, ScheduleDef, ScheduleStore } from '../domain/schedule-runner.js';
import type { Db } from './connection.js';
import { exerciseSchedule, schedules } from './schema.js';

export type ScheduleRow = typeof schedules.$inferSelect;
export type ExerciseRow = typeof exerciseSchedule.$inferSelect;

export interface ScheduleFields {
  name: string;
  days_of_week: number[];
  start_time: string;
  duration_minutes: number;
  enabled: boolean;
}

export const EXERCISE_DEFAULTS = {
  enabled: false,
  frequency_days: 7,
  start_time: '10:00',
  duration_minutes: 15,
  ...generator.EXERCISE_UNTIL_FULL_DEFAULTS,
};

export class SqlScheduleStore implements ScheduleStore {
  constructor(private readonly db: Db) {}

  async list(): Promise<ScheduleRow[]> {
    return this.db.select().from(schedules).orderBy(asc(schedules.id));
  }

  async get(id: number): Promise<ScheduleRow | null> {
    const [row] = await this.db.select().from(schedules).where(eq(schedules.id, id));
    return row ?? null;
  }

  async create(fields: ScheduleFields, now: number): Promise<ScheduleRow> {
    const [row] = await this.db
      .insert(schedules)
      .values({ ...fields, created_at: now, updated_at: now })
      .returning();
    return row as ScheduleRow;
  }

  async update(id: number, fields: Partial<ScheduleFields>, now: number): Promise<ScheduleRow | null> {
    const [row] = await this.db
      .update(schedules)
      .set({ ...fields, updated_at: now })
      .where(eq(schedules.id, id))
      .returning();
    return row ?? null;
  }

  async remove(id: number): Promise<boolean> {
    const rows = await this.db.delete(schedules).where(eq(schedules.id, id)).returning({ id: schedules.id });
    return rows.length > 0;
  }

  async enabledSchedules(): Promise<ScheduleDef[]> {
    const rows = await this.db.select().from(schedules).where(eq(schedules.enabled, true));
    return rows;
  }

  async recordScheduleResult(id: number, at: number, result: string): Promise<void> {
    await this.db.update(schedules).set({ last_run_at: at, last_result: result }).where(eq(schedules.id, id));
  }

  async exerciseRow(): Promise<ExerciseRow | null> {
    const [row] = await this.db.select().from(exerciseSchedule).where(eq(exerciseSchedule.id, 1));
    return row ?? null;
  }

  async exercise(): Promise<ExerciseDef | null> {
    return this.exerciseRow();
  }

  async saveExercise(def: ExerciseDef): Promise<ExerciseRow> {
    const values = { id: 1, ...def };
    const [row] = await this.db
      .insert(exerciseSchedule)
      .values(values)
      .onConflictDoUpdate({ target: exerciseSchedule.id, set: def })
      .returning();
    return row as ExerciseRow;
  }

  async recordExerciseResult(at: number, result: string, nextAt: number | null): Promise<void> {
    await this.db
      .update(exerciseSchedule)
      .set({ last_run_at: at, last_result: result, next_exercise_at: nextAt })
      .where(eq(exerciseSchedule.id, 1));
  }
}
