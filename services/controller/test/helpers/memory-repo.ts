import type {
  CommitBatch,
  ControllerRepository,
  EventDraft,
  OpenRun,
  PersistedState,
  Settings,
} from '../../src/domain/types.js';

export interface MemoryRun {
  id: number;
  start_time: number;
  stop_time: number | null;
  duration_seconds: number | null;
  trigger_type: string;
  stop_reason: string | null;
  notes: string | null;
  stop_note: string | null;
  fuel_type_at_run: string;
  load_at_run: number;
  gph_at_run: number;
  estimated_fuel_used: number | null;
  scheduled_run_id: number | null;
  trigger_value?: number | null;
  stop_value?: number | null;
}

/**
 * In-memory repository with the same transaction semantics as the SQL one (all of a batch or
 * nothing), and a switch to make the database "unavailable".
 */
export class MemoryRepo implements ControllerRepository {
  state: PersistedState | null = null;
  settings: Settings | null = null;
  runs: MemoryRun[] = [];
  outbox: EventDraft[] = [];
  audit: { action: string; who: string; from: string; details?: unknown }[] = [];
  labels: string[] = [];
  down = false;
  private lastRunId = 0;
  /** Called on each commit, for sequence assertions. */
  onCommit: ((label: string) => void) | null = null;

  async loadState(): Promise<PersistedState | null> {
    this.check();
    return this.state ? structuredClone(this.state) : null;
  }

  async loadSettings(): Promise<Settings | null> {
    this.check();
    return this.settings ? structuredClone(this.settings) : null;
  }

  async openRuns(): Promise<OpenRun[]> {
    this.check();
    return this.runs
      .filter((r) => r.stop_time === null)
      .map((r) => ({
        id: r.id,
        start_time: r.start_time,
        trigger_type: r.trigger_type as OpenRun['trigger_type'],
        gph_at_run: r.gph_at_run,
      }));
  }

  async runTotals(resetAt: number | null): Promise<{ seconds: number; gallonsSince: number }> {
    this.check();
    const done = this.runs.filter((r) => r.stop_time !== null);
    const since = done.filter((r) => resetAt === null || (r.stop_time as number) > resetAt);
    return {
      seconds: done.reduce((n, r) => n + (r.duration_seconds ?? 0), 0),
      gallonsSince: since.reduce((n, r) => n + (r.estimated_fuel_used ?? 0), 0),
    };
  }

  async commit(batch: CommitBatch): Promise<{ runId: number | null }> {
    this.check();
    let runId: number | null = null;
    if (batch.reserveRunId) runId = ++this.lastRunId;
    if (batch.createRun) {
      const r = batch.createRun;
      if (r.ref.id === null) throw new Error('a run is created with the id reserved for it');
      runId = r.ref.id;
      this.runs.push({
        id: runId,
        start_time: r.start_time,
        stop_time: null,
        duration_seconds: null,
        trigger_type: r.trigger_type,
        stop_reason: null,
        notes: r.notes,
        stop_note: null,
        fuel_type_at_run: r.fuel_type_at_run,
        load_at_run: r.load_at_run,
        gph_at_run: r.gph_at_run,
        estimated_fuel_used: null,
        scheduled_run_id: r.scheduled_run_id,
        trigger_value: r.trigger_value ?? null,
        stop_value: null,
      });
    }
    if (batch.state) {
      this.state = structuredClone(batch.state);
      if (batch.createRun) this.state.current_run_id = runId;
    }
    if (batch.settings) this.settings = structuredClone(batch.settings);
    for (const c of batch.closeRuns ?? []) {
      const run = this.runs.find((r) => r.id === c.ref.id);
      if (!run) throw new Error(`run ${c.ref.id} not found`);
      Object.assign(run, {
        stop_time: c.stop_time,
        duration_seconds: c.duration_seconds,
        stop_reason: c.stop_reason,
        estimated_fuel_used: c.estimated_fuel_used,
        stop_note: c.stop_note,
        stop_value: c.stop_value ?? null,
      });
    }
    if (batch.events) this.outbox.push(...batch.events(runId));
    for (const a of batch.audit ?? [])
      this.audit.push({ action: a.action, who: a.actor.who, from: a.actor.from, details: a.details });
    this.labels.push(batch.label);
    this.onCommit?.(batch.label);
    return { runId };
  }

  events(): string[] {
    return this.outbox.map((e) => e.event);
  }

  private check(): void {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  }
}
