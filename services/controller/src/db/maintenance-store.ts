import { asc, desc, eq, inArray } from 'drizzle-orm';
import type { MaintenanceDef } from '../domain/maintenance-due.js';
import type { MaintenanceReminderStore } from '../domain/maintenance-reminders.js';
import type { Actor } from '../domain/types.js';
import { writeAudit } from './audit-store.js';
import type { Db } from './connection.js';
import { maintenanceHistory, maintenanceItems } from './schema.js';

export type MaintenanceRow = typeof maintenanceItems.$inferSelect;
export type MaintenanceHistoryRow = typeof maintenanceHistory.$inferSelect;

export interface MaintenanceFields {
  name: string;
  interval_hours: number | null;
  interval_months: number | null;
  lead_hours: number | null;
  lead_days: number | null;
}

const audit = (db: Db, actor: Actor, at: number, action: string, details: Record<string, unknown>) =>
  writeAudit(db, { at, who: actor.who, from: actor.from, action, details });

/** Maintenance items and their history; every change is one transaction with its audit entry. */
export class SqlMaintenanceStore implements MaintenanceReminderStore {
  constructor(private readonly db: Db) {}

  reminderItems(): Promise<MaintenanceDef[]> {
    return this.db.select().from(maintenanceItems).orderBy(asc(maintenanceItems.id));
  }

  async markNotified(id: number, notice: 'upcoming' | 'due'): Promise<void> {
    const set =
      notice === 'due' ? { due_notified: true, upcoming_notified: true } : { upcoming_notified: true };
    await this.db.update(maintenanceItems).set(set).where(eq(maintenanceItems.id, id));
  }

  list(): Promise<MaintenanceRow[]> {
    return this.reminderItems() as Promise<MaintenanceRow[]>;
  }

  async get(id: number): Promise<MaintenanceRow | null> {
    const [row] = await this.db.select().from(maintenanceItems).where(eq(maintenanceItems.id, id));
    return row ?? null;
  }

  /** History rows of the given items, newest first. */
  history(ids: number[]): Promise<MaintenanceHistoryRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .select()
      .from(maintenanceHistory)
      .where(inArray(maintenanceHistory.item_id, ids))
      .orderBy(desc(maintenanceHistory.done_at), desc(maintenanceHistory.id));
  }

  /** A new item counts from now: its first service is one interval away. */
  create(fields: MaintenanceFields, engineMs: number, now: number, actor: Actor): Promise<MaintenanceRow> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(maintenanceItems)
        .values({
          ...fields,
          last_done_at: now,
          last_done_engine_ms: Math.round(engineMs),
          created_at: now,
          updated_at: now,
        })
        .returning();
      const created = row as MaintenanceRow;
      await audit(tx as unknown as Db, actor, now, 'maintenance.create', { id: created.id, ...fields });
      return created;
    });
  }

  /** Changed intervals start the notices of this cycle afresh. */
  update(
    id: number,
    patch: Partial<MaintenanceFields>,
    now: number,
    actor: Actor,
  ): Promise<MaintenanceRow | null> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(maintenanceItems)
        .set({ ...patch, upcoming_notified: false, due_notified: false, updated_at: now })
        .where(eq(maintenanceItems.id, id))
        .returning();
      if (!row) return null;
      await audit(tx as unknown as Db, actor, now, 'maintenance.update', { id, ...patch });
      return row;
    });
  }

  remove(id: number, now: number, actor: Actor): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.delete(maintenanceItems).where(eq(maintenanceItems.id, id)).returning();
      if (!row) return false;
      await audit(tx as unknown as Db, actor, now, 'maintenance.delete', { id, name: row.name });
      return true;
    });
  }

  /** Done now at this engine reading: the next cycle starts, and the history keeps this one. */
  markDone(
    id: number,
    engineMs: number,
    now: number,
    actor: Actor,
    note: string | null,
  ): Promise<MaintenanceRow | null> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(maintenanceItems)
        .set({
          last_done_at: now,
          last_done_engine_ms: Math.round(engineMs),
          upcoming_notified: false,
          due_notified: false,
          updated_at: now,
        })
        .where(eq(maintenanceItems.id, id))
        .returning();
      if (!row) return null;
      await tx.insert(maintenanceHistory).values({
        item_id: id,
        item_name: row.name,
        done_at: now,
        engine_ms: Math.round(engineMs),
        who: actor.who,
        source: actor.from,
        note,
      });
      await audit(tx as unknown as Db, actor, now, 'maintenance.done', {
        id,
        name: row.name,
        engine_hours: Math.round((engineMs / 3_600_000) * 1000) / 1000,
        note,
      });
      return row;
    });
  }
}
