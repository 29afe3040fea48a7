import type { Clock } from './clock.js';
import type { CommitBatch, ControllerRepository, DomainLogger } from './types.js';

interface Item {
  batch: CommitBatch;
  retry: boolean;
  resolve: (v: { runId: number | null }) => void;
  reject: (err: unknown) => void;
}

/**
 * Commits batches in order. A batch that must not be lost (a stop, an audit entry) stays at the head
 * and is retried until the database is back; a batch that may fail (a start) is rejected at once.
 */
export class WriteQueue {
  private items: Item[] = [];
  private draining = false;
  private retryHandle: unknown = null;
  private failing = false;
  private stallPromise: Promise<void> | null = null;
  private wakeStalled: (() => void) | null = null;

  constructor(
    private readonly repo: ControllerRepository,
    private readonly clock: Clock,
    private readonly logger: DomainLogger,
    private readonly retryMs: number,
    private readonly onCommitted: (batch: CommitBatch, runId: number | null) => void,
  ) {}

  /** Items waiting because the database failed. */
  get stalled(): boolean {
    return this.failing && this.items.length > 0;
  }

  /** Resolves as soon as a write fails (at once when already failing). */
  stallSignal(): Promise<void> {
    if (this.stalled) return Promise.resolve();
    if (!this.stallPromise) {
      this.stallPromise = new Promise((resolve) => {
        this.wakeStalled = resolve;
      });
    }
    return this.stallPromise;
  }

  get backlog(): number {
    return this.items.length;
  }

  enqueue(batch: CommitBatch, retry: boolean): Promise<{ runId: number | null }> {
    return new Promise((resolve, reject) => {
      if (!retry && this.stalled) {
        reject(new Error('database unavailable (writes are queued)'));
        return;
      }
      this.items.push({ batch, retry, resolve, reject });
      void this.drain();
    });
  }

  /** Try the queued writes now (e.g. before a start). */
  async flush(): Promise<void> {
    if (this.retryHandle !== null) {
      this.clock.clearTimeout(this.retryHandle);
      this.retryHandle = null;
    }
    await this.drain();
  }

  stop(): void {
    if (this.retryHandle !== null) this.clock.clearTimeout(this.retryHandle);
    this.retryHandle = null;
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.items.length > 0) {
        const item = this.items[0] as Item;
        try {
          const result = await this.repo.commit(item.batch);
          if (item.batch.reserveRunId) item.batch.reserveRunId.id = result.runId;
          this.items.shift();
          if (this.failing) this.logger.info({ batch: item.batch.label }, 'database writes resumed');
          this.failing = false;
          this.onCommitted(item.batch, result.runId);
          item.resolve(result);
        } catch (err) {
          if (!item.retry) {
            this.items.shift();
            item.reject(err);
            continue;
          }
          if (!this.failing) {
            this.logger.error({ err, batch: item.batch.label }, 'database write failed; queued for retry');
          }
          this.failing = true;
          this.wakeStalled?.();
          this.wakeStalled = null;
          this.stallPromise = null;
          if (this.retryHandle === null) {
            this.retryHandle = this.clock.setTimeout(() => {
              this.retryHandle = null;
              void this.drain();
            }, this.retryMs);
          }
          return;
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
