import type { health } from '@outpost/contracts';
import { desc } from 'drizzle-orm';
import type { Db } from './connection.js';
import { exerciseReports } from './schema.js';

/** GET /api/exercise/reports: the newest exercise runs first. */
export class ExerciseReportsReadModel {
  constructor(private readonly db: Db) {}

  async list(limit: number): Promise<health.ExerciseReport[]> {
    const rows = await this.db
      .select()
      .from(exerciseReports)
      .orderBy(desc(exerciseReports.started_at), desc(exerciseReports.id))
      .limit(limit);
    return rows.map((r) => ({
      run_id: r.run_id,
      started_at: Math.floor(r.started_at / 1000),
      confirmed: r.confirmed,
      confirm_seconds: r.confirm_seconds,
      planned_minutes: r.planned_seconds === null ? null : Math.round(r.planned_seconds / 60),
      ran_seconds: r.ran_seconds,
      full_duration: r.full_duration,
      stop_reason: r.stop_reason,
      passed: r.passed,
    }));
  }
}
