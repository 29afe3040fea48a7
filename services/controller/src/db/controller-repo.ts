import { randomUUID } from 'node:crypto';
import { eq, isNull, sql } from 'drizzle-orm';
import type {
  CommitBatch,
  ControllerRepository,
  OpenRun,
  PersistedState,
  Settings,
} from '../domain/types.js';
import type { Clock } from '../domain/clock.js';
import type { Db } from './connection.js';
import { auditLog, controllerState, outbox, runs, settings } from './schema.js';

const ROW = 1;

type StateRow = typeof controllerState.$inferSelect;
type SettingsRow = typeof settings.$inferSelect;

function stateFromRow(row: StateRow): PersistedState {
  const { id: _id, updated_at: _u, ...rest } = row;
  return rest as PersistedState;
}

function settingsFromRow(row: SettingsRow): Settings {
  return {
    limits: {
      runtime_limits_enabled: row.runtime_limits_enabled,
      max_run_minutes: row.max_run_minutes,
      cooldown_minutes: row.cooldown_minutes,
      lockout_on_max_runtime: row.lockout_on_max_runtime,
    },
    fuel: {
      fuel_type: row.fuel_type as Settings['fuel']['fuel_type'],
      expected_load: row.expected_load as Settings['fuel']['expected_load'],
      gph_at_50: row.gph_at_50,
      gph_at_100: row.gph_at_100,
    },
    boot_arming_policy: row.boot_arming_policy as Settings['boot_arming_policy'],
    bms_debounce_ms: row.bms_debounce_ms,
  };
}

function settingsToRow(s: Settings): SettingsRow {
  return {
    id: ROW,
    ...s.limits,
    ...s.fuel,
    boot_arming_policy: s.boot_arming_policy,
    bms_debounce_ms: s.bms_debounce_ms,
  };
}

/** The domain's repository port over drizzle; one commit is one transaction. */
export class SqlControllerRepository implements ControllerRepository {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async loadState(): Promise<PersistedState | null> {
    const [row] = await this.db.select().from(controllerState).where(eq(controllerState.id, ROW));
    return row ? stateFromRow(row) : null;
  }

  async loadSettings(): Promise<Settings | null> {
    const [row] = await this.db.select().from(settings).where(eq(settings.id, ROW));
    return row ? settingsFromRow(row) : null;
  }

  async openRuns(): Promise<OpenRun[]> {
    const rows = await this.db
      .select({
        id: runs.id,
        start_time: runs.start_time,
        trigger_type: runs.trigger_type,
        gph_at_run: runs.gph_at_run,
      })
      .from(runs)
      .where(isNull(runs.stop_time));
    return rows as OpenRun[];
  }

  async commit(batch: CommitBatch): Promise<{ runId: number | null }> {
    const now = this.clock.now();
    return this.db.transaction(async (tx) => {
      // Visible at once and ordered before what follows; on disk with the next commit's flush
      // (PostgreSQL flushes the WAL in order). A crash in between can lose only this transaction
      // (the start's state row and audit line); the boot reset rewrites the state anyway.
      if (batch.flushWithNext) await tx.execute(sql`set local synchronous_commit = off`);
      let runId: number | null = null;
      if (batch.createRun) {
        const { ref: _ref, ...values } = batch.createRun;
        const [row] = await tx.insert(runs).values(values).returning({ id: runs.id });
        runId = row?.id ?? null;
      }
      for (const c of batch.closeRuns ?? []) {
        if (c.ref.id === null) continue;
        await tx
          .update(runs)
          .set({
            stop_time: c.stop_time,
            duration_seconds: c.duration_seconds,
            stop_reason: c.stop_reason,
            estimated_fuel_used: c.estimated_fuel_used,
            stop_note: c.stop_note,
          })
          .where(eq(runs.id, c.ref.id));
      }
      if (batch.state) {
        const values = { ...batch.state, id: ROW, updated_at: now };
        if (batch.createRun) values.current_run_id = runId;
        await tx
          .insert(controllerState)
          .values(values)
          .onConflictDoUpdate({ target: controllerState.id, set: values });
      }
      if (batch.settings) {
        const values = settingsToRow(batch.settings);
        await tx.insert(settings).values(values).onConflictDoUpdate({ target: settings.id, set: values });
      }
      const events = batch.events?.(runId) ?? [];
      if (events.length > 0) {
        await tx
          .insert(outbox)
          .values(
            events.map((e) => ({ event_id: randomUUID(), event: e.event, data: e.data, created_at: now })),
          );
      }
      const audit = batch.audit ?? [];
      if (audit.length > 0) {
        await tx.insert(auditLog).values(
          audit.map((a) => ({
            at: now,
            who: a.actor.who,
            source: a.actor.from,
            action: a.action,
            details: (a.details ?? null) as Record<string, unknown> | null,
          })),
        );
      }
      return { runId };
    });
  }
}
