import { and, count, desc, eq, gt, gte, isNotNull, sql } from 'drizzle-orm';
import type { Db } from './connection.js';
import { runs } from './schema.js';

type RunRow = typeof runs.$inferSelect;

const sec = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

/** A run row as the API shows it (times in Unix seconds). */
export function runView(r: RunRow) {
  return {
    id: r.id,
    start_time: Math.floor(r.start_time / 1000),
    stop_time: sec(r.stop_time),
    duration_seconds: r.duration_seconds,
    trigger_type: r.trigger_type,
    stop_reason: r.stop_reason,
    notes: r.notes,
    stop_note: r.stop_note,
    fuel_type_at_run: r.fuel_type_at_run,
    load_at_run: r.load_at_run,
    estimated_fuel_used: r.estimated_fuel_used,
    scheduled_run_id: r.scheduled_run_id,
    trigger_value: r.trigger_value,
    stop_value: r.stop_value,
  };
}

export async function runHistory(db: Db, limit: number, trigger?: string) {
  const where = trigger ? eq(runs.trigger_type, trigger) : undefined;
  const rows = await db
    .select()
    .from(runs)
    .where(where)
    .orderBy(desc(runs.start_time), desc(runs.id))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(runs).where(where);
  return { runs: rows.map(runView), total: Number(total?.n ?? 0) };
}

/** Completed runs that started within the last `days` days. */
export async function runStats(db: Db, days: number, now: number) {
  const since = now - days * 86_400_000;
  const rows = await db
    .select({
      trigger: runs.trigger_type,
      n: count(),
      seconds: sql<string>`coalesce(sum(${runs.duration_seconds}), 0)`,
    })
    .from(runs)
    .where(and(gte(runs.start_time, since), isNotNull(runs.stop_time)))
    .groupBy(runs.trigger_type);
  const runs_by_trigger: Record<string, number> = {};
  const runtime_by_trigger: Record<string, number> = {};
  let total = 0;
  let seconds = 0;
  for (const r of rows) {
    runs_by_trigger[r.trigger] = Number(r.n);
    runtime_by_trigger[r.trigger] = Number(r.seconds);
    total += Number(r.n);
    seconds += Number(r.seconds);
  }
  return {
    period_days: days,
    total_runs: total,
    total_runtime_seconds: seconds,
    total_runtime_hours: Math.round((seconds / 3600) * 100) / 100,
    average_runtime_seconds: total > 0 ? Math.round(seconds / total) : 0,
    runs_by_trigger,
    runtime_by_trigger,
  };
}

/** Run seconds of every completed run and fuel of those completed after resetAt, in one query. */
export async function runTotals(db: Db, resetAt: number | null) {
  const since = resetAt === null ? sql`true` : gt(runs.stop_time, resetAt);
  const [row] = await db
    .select({
      seconds: sql<string>`coalesce(sum(${runs.duration_seconds}), 0)`,
      gallonsSince: sql<string>`coalesce(sum(${runs.estimated_fuel_used}) filter (where ${since}), 0)`,
    })
    .from(runs)
    .where(isNotNull(runs.stop_time));
  return { seconds: Number(row?.seconds ?? 0), gallonsSince: Number(row?.gallonsSince ?? 0) };
}

/** Fuel and runtime of the runs completed since the last reset. */
export async function fuelSince(db: Db, since: number | null) {
  const [row] = await db
    .select({
      n: count(),
      gallons: sql<string>`coalesce(sum(${runs.estimated_fuel_used}), 0)`,
      seconds: sql<string>`coalesce(sum(${runs.duration_seconds}), 0)`,
    })
    .from(runs)
    .where(and(isNotNull(runs.stop_time), since === null ? undefined : gt(runs.stop_time, since)));
  return {
    runs: Number(row?.n ?? 0),
    gallons: Number(row?.gallons ?? 0),
    seconds: Number(row?.seconds ?? 0),
  };
}
