import { randomUUID } from 'node:crypto';
import { eq, isNull } from 'drizzle-orm';
import type {
  CommitBatch,
  ControllerRepository,
  OpenRun,
  PersistedState,
  Settings,
} from '../domain/types.js';
import type { Clock } from '../domain/clock.js';
import type { Database, Db } from './connection.js';
import { batchStatement } from './batch-statement.js';
import { runTotals } from './run-queries.js';
import { type CarriedMarks, type MarkCarrier, stampColumns } from '../outbox/pending-marks.js';
import type { OutboxRow } from './outbox-store.js';
import { controllerState, runs, settings } from './schema.js';

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
    health: {
      running_feedback_source: row.running_feedback_source as Settings['health']['running_feedback_source'],
      fail_to_start_policy: row.fail_to_start_policy as Settings['health']['fail_to_start_policy'],
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
    ...s.health,
    boot_arming_policy: s.boot_arming_policy,
    bms_debounce_ms: s.bms_debounce_ms,
  };
}

/** The domain's repository port over drizzle; one commit is one transaction. */
export class SqlControllerRepository implements ControllerRepository {
  private readonly db: Db;

  constructor(
    private readonly database: Pick<Database, 'db' | 'query'>,
    private readonly clock: Clock,
    /** Told of each commit's outbox rows, with their ids, once it is committed. */
    private readonly onEvents?: (rows: OutboxRow[]) => void,
    /** Stamps of published events, written by the next commit that adds events. */
    private readonly marks?: MarkCarrier,
  ) {
    this.db = database.db;
  }

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

  runTotals(resetAt: number | null): Promise<{ seconds: number; gallonsSince: number }> {
    return runTotals(this.db, resetAt);
  }

  /** One batch, one statement (so one transaction and one round trip). */
  async commit(batch: CommitBatch): Promise<{ runId: number | null }> {
    const now = this.clock.now();
    const newRun = batch.createRun;
    if (newRun && newRun.ref.id === null) throw new Error('a run is created with the id reserved for it');
    const runId = newRun?.ref.id ?? null;
    const outbox = (batch.events?.(runId) ?? []).map((e) => ({
      event_id: randomUUID(),
      event: e.event,
      data: e.data,
      created_at: now,
    }));
    // Only commits that add events carry stamps: the start's state row and the stop's stay lean.
    const carried = outbox.length > 0 ? (this.marks?.take() ?? null) : null;
    let rows: Record<string, unknown>[];
    try {
      rows = await this.database.query(this.statement(batch, now, runId, outbox, carried));
    } catch (err) {
      carried?.settle(false);
      throw err;
    }
    carried?.settle(true);
    if (outbox.length > 0 && this.onEvents) {
      const ids = (rows[0]?.outbox_ids as unknown[] | undefined) ?? [];
      this.onEvents(
        outbox.map((e, i) => ({ ...e, id: Number(ids[i]), published_at: null, fanned_out_at: null })),
      );
    }
    if (batch.reserveRunId) return { runId: Number(rows[0]?.run_id) };
    return { runId };
  }

  private statement(
    batch: CommitBatch,
    now: number,
    runId: number | null,
    outbox: Record<string, unknown>[],
    carried: CarriedMarks | null,
  ) {
    const newRun = batch.createRun;
    return batchStatement({
      state: batch.state && {
        ...batch.state,
        ...(newRun ? { current_run_id: runId } : {}),
        id: ROW,
        updated_at: now,
      },
      settings: batch.settings && settingsToRow(batch.settings),
      ...(batch.exerciseReport ? { exerciseReport: { ...batch.exerciseReport } } : {}),
      newRun: newRun && { ...newRun, id: runId },
      closeRuns: (batch.closeRuns ?? [])
        .filter((c) => c.ref.id !== null)
        .map((c) => ({ id: c.ref.id as number, set: c as unknown as Record<string, unknown> })),
      outbox,
      audit: (batch.audit ?? []).map((a) => ({
        at: now,
        who: a.actor.who,
        source: a.actor.from,
        action: a.action,
        details: a.details ?? null,
      })),
      reserveRunId: batch.reserveRunId !== undefined,
      unflushed: batch.flushWithNext === true,
      ...(carried ? { sentStamps: stampColumns(carried.groups) } : {}),
    });
  }
}
