import { and, asc, desc, eq, inArray, isNull, lte } from 'drizzle-orm';
import { type MarkGroup, stampColumns } from '../outbox/pending-marks.js';
import { sentStampsSql, tableRef } from './batch-statement.js';
import type { Database, Db } from './connection.js';
import { outbox, webhookDeliveries, webhooks } from './schema.js';

export type OutboxRow = typeof outbox.$inferSelect;

const OUTBOX_REF = tableRef(outbox);
export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export interface WebhookFields {
  url: string;
  secret: string;
  events: string[];
  enabled: boolean;
}

/** The outbox and the webhook tables. */
export class OutboxStore {
  private enabled: Promise<WebhookRow[]> | null = null;

  constructor(
    private readonly db: Db,
    /** The driver beside drizzle, for the marks each event takes. */
    private readonly database: Pick<Database, 'query'>,
  ) {}

  unpublished(limit: number): Promise<OutboxRow[]> {
    return this.db
      .select()
      .from(outbox)
      .where(isNull(outbox.published_at))
      .orderBy(asc(outbox.id))
      .limit(limit);
  }

  async markPublished(ids: number[], at: number): Promise<void> {
    await this.mark(ids, at, { published: true, fanned: false });
  }

  /**
   * Stamps rows published and/or fanned out: one prepared statement, atomic on its own, and
   * unflushed. A mark lost in a crash only sends the event again (same event_id), which the outbox
   * allows anyway.
   */
  private async mark(ids: number[], at: number, stamp: { published: boolean; fanned: boolean }) {
    if (ids.length === 0) return;
    const set = [stamp.fanned && '"fanned_out_at" = $1', stamp.published && '"published_at" = $1']
      .filter(Boolean)
      .join(', ');
    await this.database.query({
      name: `outpost_outbox_mark_${stamp.published ? 'p' : ''}${stamp.fanned ? 'f' : ''}`,
      text: `with w as (update ${OUTBOX_REF} set ${set} where "id" = any($2::bigint[])) select set_config('synchronous_commit', 'off', true)`,
      params: [at, ids],
    });
  }

  /** Stamps groups of rows published and fanned out, each group with its own instant; unflushed, as above. */
  async stampSent(groups: MarkGroup[]): Promise<void> {
    const { ids, ats } = stampColumns(groups);
    if (ids.length === 0) return;
    await this.database.query({
      name: 'outpost_outbox_stamp_sent',
      text: `with w as (${sentStampsSql('$1::bigint[]', '$2::bigint[]')}) select set_config('synchronous_commit', 'off', true)`,
      params: [ids, ats],
    });
  }

  unfanned(limit: number): Promise<OutboxRow[]> {
    return this.db
      .select()
      .from(outbox)
      .where(isNull(outbox.fanned_out_at))
      .orderBy(asc(outbox.id))
      .limit(limit);
  }

  /**
   * Creates the deliveries of these events and marks them fanned out (and published, when they just
   * were), all or nothing.
   */
  async fanOut(
    items: { row: OutboxRow; webhookIds: number[] }[],
    now: number,
    opts: { published?: boolean } = {},
  ): Promise<void> {
    if (items.length === 0) return;
    const deliveries = items.flatMap(({ row, webhookIds }) =>
      webhookIds.map((webhook_id) => ({
        webhook_id,
        outbox_id: row.id,
        event: row.event,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
      })),
    );
    const ids = items.map((i) => i.row.id);
    const published = opts.published === true;
    if (deliveries.length === 0) {
      await this.mark(ids, now, { published, fanned: true });
      return;
    }
    await this.db.transaction(async (tx) => {
      await tx.insert(webhookDeliveries).values(deliveries);
      await tx
        .update(outbox)
        .set(published ? { fanned_out_at: now, published_at: now } : { fanned_out_at: now })
        .where(inArray(outbox.id, ids));
    });
  }

  async dueDeliveries(now: number, limit: number) {
    return this.db
      .select({ delivery: webhookDeliveries, webhook: webhooks, item: outbox })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhook_id))
      .innerJoin(outbox, eq(outbox.id, webhookDeliveries.outbox_id))
      .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.next_attempt_at, now)))
      .orderBy(asc(webhookDeliveries.id))
      .limit(limit);
  }

  async nextDueAt(): Promise<number | null> {
    const [row] = await this.db
      .select({ at: webhookDeliveries.next_attempt_at })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.status, 'pending'))
      .orderBy(asc(webhookDeliveries.next_attempt_at))
      .limit(1);
    return row?.at ?? null;
  }

  async recordAttempt(id: number, patch: Partial<Omit<DeliveryRow, 'id'>>): Promise<void> {
    await this.db.update(webhookDeliveries).set(patch).where(eq(webhookDeliveries.id, id));
  }

  async recordDirect(row: Omit<DeliveryRow, 'id'>): Promise<void> {
    await this.db.insert(webhookDeliveries).values(row);
  }

  deliveries(webhookId: number, limit: number): Promise<DeliveryRow[]> {
    return this.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhook_id, webhookId))
      .orderBy(desc(webhookDeliveries.id))
      .limit(limit);
  }

  // ---- webhooks CRUD ----

  listWebhooks(): Promise<WebhookRow[]> {
    return this.db.select().from(webhooks).orderBy(asc(webhooks.id));
  }

  /** Read on every outbox pass; this store makes every webhook change, so it keeps them until one. */
  enabledWebhooks(): Promise<WebhookRow[]> {
    this.enabled ??= this.db
      .select()
      .from(webhooks)
      .where(eq(webhooks.enabled, true))
      .catch((err: unknown) => {
        this.enabled = null;
        throw err;
      });
    return this.enabled;
  }

  async getWebhook(id: number): Promise<WebhookRow | null> {
    const [row] = await this.db.select().from(webhooks).where(eq(webhooks.id, id));
    return row ?? null;
  }

  async createWebhook(fields: WebhookFields, now: number): Promise<WebhookRow> {
    this.enabled = null;
    const [row] = await this.db
      .insert(webhooks)
      .values({ ...fields, created_at: now, updated_at: now })
      .returning();
    return row as WebhookRow;
  }

  async updateWebhook(id: number, fields: Partial<WebhookFields>, now: number): Promise<WebhookRow | null> {
    this.enabled = null;
    const [row] = await this.db
      .update(webhooks)
      .set({ ...fields, updated_at: now })
      .where(eq(webhooks.id, id))
      .returning();
    return row ?? null;
  }

  async deleteWebhook(id: number): Promise<boolean> {
    this.enabled = null;
    const rows = await this.db.delete(webhooks).where(eq(webhooks.id, id)).returning({ id: webhooks.id });
    return rows.length > 0;
  }

  async outboxByIds(ids: number[]): Promise<OutboxRow[]> {
    if (ids.length === 0) return [];
    return this.db.select().from(outbox).where(inArray(outbox.id, ids));
  }
}
