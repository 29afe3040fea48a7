import type { health } from '@outpost/contracts';
import type {
  MaintenanceFields,
  MaintenanceHistoryRow,
  MaintenanceRow,
  SqlMaintenanceStore,
} from './db/maintenance-store.js';
import type { Clock } from './domain/clock.js';
import type { GeneratorController } from './domain/generator-controller.js';
import { dueInfo } from './domain/maintenance-due.js';
import type { MaintenanceReminders } from './domain/maintenance-reminders.js';
import type { Actor } from './domain/types.js';

const HOUR_MS = 3_600_000;
const sec = (ms: number) => Math.floor(ms / 1000);

/** Maintenance items as the API shows them, and the changes operators make; each re-checks the reminders. */
export class MaintenanceService {
  constructor(
    private readonly o: {
      store: SqlMaintenanceStore;
      reminders: MaintenanceReminders;
      controller: GeneratorController;
      clock: Clock;
      timezone: string;
    },
  ) {}

  async list(): Promise<health.MaintenanceItem[]> {
    const rows = await this.o.store.list();
    const history = await this.o.store.history(rows.map((r) => r.id));
    return rows.map((r) => this.view(r, history));
  }

  async get(id: number): Promise<health.MaintenanceItem | null> {
    const row = await this.o.store.get(id);
    return row ? this.view(row, await this.o.store.history([id])) : null;
  }

  async create(fields: MaintenanceFields, actor: Actor): Promise<health.MaintenanceItem> {
    const row = await this.o.store.create(fields, this.engineMs(), this.o.clock.now(), actor);
    await this.o.reminders.check();
    return this.view(row, []);
  }

  async update(
    id: number,
    patch: Partial<MaintenanceFields>,
    actor: Actor,
  ): Promise<health.MaintenanceItem | null> {
    const current = await this.o.store.get(id);
    if (!current) return null;
    const next = { ...current, ...patch };
    if (next.interval_hours === null && next.interval_months === null) {
      throw new MaintenanceInvalid('an item needs interval_hours, interval_months or both');
    }
    const row = await this.o.store.update(id, patch, this.o.clock.now(), actor);
    await this.o.reminders.check();
    return row ? this.get(row.id) : null;
  }

  async remove(id: number, actor: Actor): Promise<boolean> {
    const removed = await this.o.store.remove(id, this.o.clock.now(), actor);
    await this.o.reminders.check();
    return removed;
  }

  async done(id: number, actor: Actor, note: string | null): Promise<health.MaintenanceItem | null> {
    const row = await this.o.store.markDone(id, this.engineMs(), this.o.clock.now(), actor, note);
    if (!row) return null;
    await this.o.reminders.check();
    return this.get(id);
  }

  /** Home Assistant's button: the item named, or every item due now. Returns how many were marked. */
  async doneFromAutomation(actor: Actor, itemId?: number): Promise<number> {
    if (itemId !== undefined) return (await this.done(itemId, actor, null)) ? 1 : 0;
    const due = (await this.list()).filter((i) => i.status === 'due');
    for (const item of due) await this.done(item.id, actor, null);
    return due.length;
  }

  private engineMs(): number {
    return this.o.controller.engineHours * HOUR_MS;
  }

  private view(r: MaintenanceRow, history: MaintenanceHistoryRow[]): health.MaintenanceItem {
    const info = dueInfo(r, this.engineMs(), this.o.clock.now(), this.o.timezone);
    return {
      id: r.id,
      name: r.name,
      interval_hours: r.interval_hours,
      interval_months: r.interval_months,
      lead_hours: r.lead_hours,
      lead_days: r.lead_days,
      last_done_at: sec(r.last_done_at),
      last_done_engine_hours: Math.round((r.last_done_engine_ms / HOUR_MS) * 1000) / 1000,
      due_engine_hours: info.due_engine_hours,
      due_at: info.due_at === null ? null : sec(info.due_at),
      status: info.status,
      history: history
        .filter((h) => h.item_id === r.id)
        .map((h) => ({
          done_at: sec(h.done_at),
          engine_hours: Math.round((h.engine_ms / HOUR_MS) * 1000) / 1000,
          who: h.who,
          note: h.note,
        })),
    };
  }
}

/** An update that would leave an item with no interval at all (422). */
export class MaintenanceInvalid extends Error {}
