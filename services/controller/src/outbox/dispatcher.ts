import type { generator } from '@outpost/contracts';
import type { Clock } from '../domain/clock.js';
import type { DomainLogger } from '../domain/types.js';
import type { OutboxRow, OutboxStore } from '../db/outbox-store.js';
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
  /** Period of the retry sweep. */
  sweepMs?: number;
  publishTimeoutMs?: number;
}

/**
 * Publishes the outbox: every event to MQTT (in order, marked only after the broker's ack, so a broker
 * outage loses none), and the webhook events to each matching webhook with retries and a delivery log.
 */
export class OutboxDispatcher {
  private running = false;
  private again = false;
  private timer: unknown = null;
  private idle: Promise<void> = Promise.resolve();
  /** When the next pending webhook delivery is due: undefined unknown, null none pending. */
  private nextDueAt: number | null | undefined = undefined;

  constructor(private readonly opts: DispatcherOptions) {}

  start(): void {
    this.timer = this.opts.clock.setInterval(() => this.kick(), this.opts.sweepMs ?? 5000);
    this.kick();
  }

  stop(): void {
    if (this.timer !== null) this.opts.clock.clearInterval(this.timer);
    this.timer = null;
  }

  /** Asks for a pass; passes never overlap. Resolves when the pass (and any it caused) finished. */
  kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.idle;
    }
    this.running = true;
    this.idle = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again);
      } catch (err) {
        this.opts.logger.warn({ err }, 'outbox pass failed; will retry');
      } finally {
        this.running = false;
      }
    })();
    return this.idle;
  }

  private async pass(): Promise<void> {
    await this.publishToBus();
    await this.fanOut();
    await this.deliverDue();
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

  private async publishToBus(): Promise<void> {
    const sink = this.opts.sink;
    if (!sink) return;
    for (;;) {
      if (!sink.connected) return;
      const rows = await this.opts.store.unpublished(BATCH);
      if (rows.length === 0) return;
      const acked: number[] = [];
      let interrupted = false;
      for (const row of rows) {
        if (!sink.connected) {
          interrupted = true;
          break;
        }
        try {
          await withTimeout(sink.publish(this.toEvent(row)), this.opts.publishTimeoutMs ?? 5000);
        } catch (err) {
          this.opts.logger.warn({ err, event: row.event }, 'event publish failed; kept in the outbox');
          interrupted = true;
          break;
        }
        acked.push(row.id);
      }
      // Marked only after the broker's ack; a crash before this line sends them again (same event_id).
      await this.opts.store.markPublished(acked, this.opts.clock.now());
      // A short batch was everything; events written since then come with their own kick.
      if (interrupted || rows.length < BATCH) return;
    }
  }

  private async fanOut(): Promise<void> {
    for (;;) {
      const rows = await this.opts.store.unfanned(BATCH);
      if (rows.length === 0) return;
      const hooks = await this.opts.store.enabledWebhooks();
      const items = rows.map((row) => ({
        row,
        webhookIds: isWebhookEvent(row.event)
          ? hooks.filter((h) => eventMatches(h.events, row.event)).map((h) => h.id)
          : [],
      }));
      await this.opts.store.fanOut(items, this.opts.clock.now());
      if (items.some((i) => i.webhookIds.length > 0)) this.nextDueAt = undefined;
      if (rows.length < BATCH) return;
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
        { deliveryId: String(delivery.id) },
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
      const delay = retryDelayMs(attempts);
      await this.opts.store.recordAttempt(delivery.id, {
        status: delay === null ? 'failed' : 'pending',
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

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('publish timed out')), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
