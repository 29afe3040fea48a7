import { type Clock, Coalesced } from './clock.js';
import type { GeneratorController } from './generator-controller.js';
import { noticeEvents } from './health-events.js';
import { dueInfo, type MaintenanceDef } from './maintenance-due.js';
import type { DomainLogger } from './types.js';

const HOUR_MS = 3_600_000;

export interface MaintenanceReminderStore {
  reminderItems(): Promise<MaintenanceDef[]>;
  markNotified(id: number, notice: 'upcoming' | 'due'): Promise<void>;
}

/**
 * Watches the maintenance items against the engine-hour meter and the calendar: one notice when an
 * item comes within its lead time, one when it is due, each once per service cycle. The notice is
 * written to the outbox before it is marked sent, so a crash between sends it again, never drops it.
 */
export class MaintenanceReminders {
  private timer: unknown = null;
  private readonly checks: Coalesced;

  constructor(
    private readonly deps: {
      clock: Clock;
      store: MaintenanceReminderStore;
      controller: GeneratorController;
      logger: DomainLogger;
      timezone: string;
      periodMs?: number;
    },
  ) {
    this.checks = new Coalesced(
      () => this.checkNow(),
      (err) => deps.logger.warn({ err }, 'maintenance check failed; will retry'),
    );
  }

  start(): Promise<void> {
    this.timer = this.deps.clock.setInterval(() => void this.check(), this.deps.periodMs ?? 60_000);
    return this.check();
  }

  stop(): void {
    if (this.timer !== null) this.deps.clock.clearInterval(this.timer);
    this.timer = null;
  }

  /** Re-reads the items (after a change, or on the timer); checks never overlap. */
  check(): Promise<void> {
    return this.checks.run();
  }

  private async checkNow(): Promise<void> {
    const { clock, store, controller, timezone } = this.deps;
    const items = await store.reminderItems();
    const engineMs = controller.engineHours * HOUR_MS;
    const now = clock.now();
    let anyDue = false;
    for (const item of items) {
      const info = dueInfo(item, engineMs, now, timezone);
      if (info.status === 'due') anyDue = true;
      const notice = info.status === 'due' && !item.due_notified ? 'due' : null;
      const early = info.status === 'upcoming' && !item.upcoming_notified ? 'upcoming' : null;
      const kind = notice ?? early;
      if (!kind) continue;
      const when = [
        info.due_engine_hours !== null ? `at ${info.due_engine_hours} engine hours` : null,
        info.due_at !== null ? `on ${new Date(info.due_at).toISOString().slice(0, 10)}` : null,
      ]
        .filter(Boolean)
        .join(' or ');
      const details = kind === 'due' ? `${item.name} is due (${when})` : `${item.name} is due soon (${when})`;
      await controller.recordEvents(
        `maintenance:${kind}`,
        noticeEvents(`maintenance_${kind}`, `generator.maintenance.${kind}`, now, kind, details, {
          item_id: item.id,
          item_name: item.name,
          due_engine_hours: info.due_engine_hours,
          due_at: info.due_at === null ? null : Math.floor(info.due_at / 1000),
          engine_hours: Math.round((engineMs / HOUR_MS) * 1000) / 1000,
        }),
      );
      await store.markNotified(item.id, kind);
    }
    controller.setMaintenanceDue(anyDue);
  }
}
