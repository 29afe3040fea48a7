import type { generator } from '@outpost/contracts';
import { withTimeout } from '@outpost/runtime/clock';
import { type Clock, Coalesced } from '../domain/clock.js';
import type { DomainLogger } from '../domain/types.js';
import type { OutboxRow, OutboxStore } from '../db/outbox-store.js';
import type { PendingMarks } from './pending-marks.js';
import { eventMatches, isWebhookEvent, postWebhook, retryDelayMs } from './webhook-client.js';

/** Outbox rows taken per query. */
const BATCH = 100;

/** Where events go on the bus; publish resolves once the broker acknowledged (QoS 1). */
export interface EventSink {
  readonly connected: boolean;
  publish(event: generator.ControllerEvent): Promise<void>;
}

export interface DispatcherOptions {
  store: OutboxStore;
  sink: EventSink | null;
  clock: Clock;
  logger: DomainLogger;
  controllerId: string;
  /** Stamps of events published from memory, written by the next commit that adds events. */
  marks?: PendingMarks;
  /** Period of the retry sweep. */
  sweepMs?: number;
  publishTimeoutMs?: number;
  /** Refuses webhook URLs the outbound policy does not allow. */
  outbound?: (url: string) => Promise<string | null>;
}

/**
 * Publishes the outbox: every event to MQTT (in order, marked only after the broker's ack, so a broker
 * outage loses none), and the webhook events to each matching webhook with retries and a delivery log.
 */
export class OutboxDispatcher {
  private timer: unknown = null;
  private readonly passes = new Coalesced(
    () => this.pass(),
    (err) => {
      this.caughtUp = false;
      this.opts.logger.warn({ err }, 'outbox pass failed; will retry');
    },
  );
  /** When the next pending webhook delivery is due: undefined unknown, null none pending. */
  private nextDueAt: number | null | undefined = undefined;
  /** Rows this process committed since the last pass, in id order. */
  private fresh: OutboxRow[] = [];
  /**
   * Every row older than the fresh ones is published and fanned out, so a pass can take the fresh
   * rows from memory instead of reading the outbox back. False at boot and after any failure.
   */
  private caughtUp = false;
  /** Highest id published by either path (both go in id order); keeps a row from going out twice. */
  private publishedThrough = 0;

  constructor(private readonly opts: DispatcherOptions) {}

  start(): void {
    this.timer = this.opts.clock.setInterval(() => this.kick(true), this.opts.sweepMs ?? 5000);
    this.kick(true);
  }

  /** Rows just committed by this process; the next kick publishes them. */
  committed(rows: OutboxRow[]): void {
    this.fresh.push(...rows);
  }

  stop(): void {
    if (this.timer !== null) this.opts.clock.clearInterval(this.timer);
    this.timer = null;
    this.opts.marks?.stop();
  }

  /** Writes the stamps still waiting (at shutdown); a failure only means those events go out again. */
  async flushMarks(): Promise<void> {
    await this.opts.marks?.flush();
  }

  /**
   * Asks for a pass; passes never overlap. Resolves when the pass (and any it caused) finished. A
   * sweep reads the outbox back whatever the dispatcher believes.
   */
  kick(sweep = false): Promise<void> {
    if (sweep) this.caughtUp = false;
    return this.passes.run();
  }

  private async pass(): Promise<void> {
    if (!(this.caughtUp && (await this.publishFresh()))) {
      // Read back: whatever is in memory is also in the outbox. Stamps still waiting are written
      // first, or the rows they cover would read as unpublished and go out twice.
      this.fresh = [];
      await this.opts.marks?.flush();
      const published = await this.publishToBus();
      const fanned = await this.fanOut();
      this.caughtUp = published && fanned;
    }
    await this.deliverDue();
  }

  /**
   * The fresh rows straight from memory, published in order. Rows no webhook wants are stamped by
   * the next commit that adds events; rows with deliveries get them and their stamps in one write now.
   * False when the broker is away: the outbox keeps them.
   */
  private async publishFresh(): Promise<boolean> {
    const sink = this.opts.sink;
    const rows = this.fresh.filter((r) => r.id > this.publishedThrough);
    this.fresh = [];
    if (rows.length === 0) return true;
    // Without a broker the rows stay unpublished; the read-back path fans them out.
    if (!sink) return false;
    const acked = await this.publishAll(sink, rows);
    const items = await this.deliveriesFor(acked);
    const now = this.opts.clock.now();
    const { marks } = this.opts;
    if (marks && items.every((i) => i.webhookIds.length === 0)) {
      marks.add(
        acked.map((r) => r.id),
        now,
      );
    } else await this.opts.store.fanOut(items, now, { published: true });
    return acked.length === rows.length;
  }

  /**
   * Publishes the rows together (one write to the broker: the client sends them in order on one
   * connection, and the broker keeps that order) and returns the acknowledged prefix. A row after a
   * failed one may have arrived too; it goes again with the same event_id.
   */
  private async publishAll(sink: EventSink, rows: OutboxRow[]): Promise<OutboxRow[]> {
    const oks = await Promise.all(rows.map((row) => this.publishOne(sink, row)));
    const failed = oks.indexOf(false);
    const acked = failed === -1 ? rows : rows.slice(0, failed);
    const last = acked.at(-1);
    if (last) this.publishedThrough = Math.max(this.publishedThrough, last.id);
    return acked;
  }

  private async publishOne(sink: EventSink, row: OutboxRow): Promise<boolean> {
    if (!sink.connected) return false;
    try {
      await withTimeout(
        sink.publish(this.toEvent(row)),
        this.opts.publishTimeoutMs ?? 5000,
        'publish timed out',
      );
    } catch (err) {
      this.opts.logger.warn({ err, event: row.event }, 'event publish failed; kept in the outbox');
      return false;
    }
    return true;
  }

  /** The webhooks each row goes to. */
  private async deliveriesFor(rows: OutboxRow[]) {
    if (rows.length === 0) return [];
    const hooks = await this.opts.store.enabledWebhooks();
    const items = rows.map((row) => ({
      row,
      webhookIds: isWebhookEvent(row.event)
        ? hooks.filter((h) => eventMatches(h.events, row.event)).map((h) => h.id)
        : [],
    }));
    if (items.some((i) => i.webhookIds.length > 0)) this.nextDueAt = undefined;
    return items;
  }

  private toEvent(row: OutboxRow): generator.ControllerEvent {
    return {
      event: row.event,
      event_id: row.event_id,
      timestamp: Math.floor(row.created_at / 1000),
      controller_id: this.opts.controllerId,
      data: row.data,
    };
  }

  /** True when the outbox has nothing unpublished left. */
  private async publishToBus(): Promise<boolean> {
    const sink = this.opts.sink;
    if (!sink) return true;
    for (;;) {
      const rows = await this.opts.store.unpublished(BATCH);
      if (rows.length === 0) return true;
      const acked = (await this.publishAll(sink, rows)).map((r) => r.id);
      // Marked only after the broker's ack; a crash before this line sends them again (same event_id).
      await this.opts.store.markPublished(acked, this.opts.clock.now());
      if (acked.length < rows.length) return false;
      // A short batch was everything; events written since then come with their own kick.
      if (rows.length < BATCH) return true;
    }
  }

  /** True when every row is fanned out to its webhooks. */
  private async fanOut(): Promise<boolean> {
    for (;;) {
      const rows = await this.opts.store.unfanned(BATCH);
      if (rows.length === 0) return true;
      await this.opts.store.fanOut(await this.deliveriesFor(rows), this.opts.clock.now());
      if (rows.length < BATCH) return true;
    }
  }

  private async deliverDue(): Promise<void> {
    // Only this dispatcher creates and reschedules deliveries, so it knows when the next one is due.
    if (this.nextDueAt === null || (this.nextDueAt !== undefined && this.nextDueAt > this.opts.clock.now()))
      return;
    await this.deliverNow();
    this.nextDueAt = await this.opts.store.nextDueAt();
  }

  private async deliverNow(): Promise<void> {
    const due = await this.opts.store.dueDeliveries(this.opts.clock.now(), 50);
    for (const { delivery, webhook, item } of due) {
      const attempts = delivery.attempts + 1;
      const result = await postWebhook(
        webhook.url,
        webhook.secret,
        { event: item.event, timestamp: Math.floor(item.created_at / 1000), data: item.data },
        { deliveryId: String(delivery.id), outbound: this.opts.outbound },
      );
      const now = this.opts.clock.now();
      if (result.ok) {
        await this.opts.store.recordAttempt(delivery.id, {
          status: 'delivered',
          attempts,
          delivered_at: now,
          next_attempt_at: null,
          last_status_code: result.status,
          last_error: null,
        });
        continue;
      }
      // A refused address stays refused until OUTBOUND_ALLOWED_NETWORKS changes (a restart): not retried,
      // and the history says why.
      const delay = result.refused ? null : retryDelayMs(attempts);
      await this.opts.store.recordAttempt(delivery.id, {
        status: result.refused ? 'refused' : delay === null ? 'failed' : 'pending',
        attempts,
        next_attempt_at: delay === null ? null : now + delay,
        last_status_code: result.status,
        last_error: result.error,
      });
      this.opts.logger.warn(
        { webhook_id: webhook.id, event: item.event, attempts, error: result.error },
        'webhook delivery failed',
      );
    }
  }
}
