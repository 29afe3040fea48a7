import type { Clock } from '../domain/clock.js';

/** Outbox rows acknowledged by the broker at one instant; stamped published and fanned out together. */
export interface MarkGroup {
  ids: number[];
  at: number;
}

/** The groups as two parallel arrays, one instant per id, for a single UPDATE … FROM unnest(…). */
export function stampColumns(groups: MarkGroup[]): { ids: number[]; ats: number[] } {
  return { ids: groups.flatMap((g) => g.ids), ats: groups.flatMap((g) => g.ids.map(() => g.at)) };
}

/** Stamps handed to one write; settle says whether that write committed. */
export interface CarriedMarks {
  groups: MarkGroup[];
  settle(committed: boolean): void;
}

/** What a commit that writes to the outbox takes along: the stamps not written yet. */
export interface MarkCarrier {
  take(): CarriedMarks | null;
}

/**
 * Stamps of published events waiting to be written. The next commit that adds events carries them
 * in its own statement, so a busy controller spends no round trip on them; a quiet one writes them
 * after `delayMs`. A stamp lost in a crash only sends the event again with the same event_id, which
 * the outbox allows anyway (the stamps were never flushed to disk on their own either).
 */
export class PendingMarks implements MarkCarrier {
  private groups: MarkGroup[] = [];
  private timer: unknown = null;
  /** Writes that took stamps and have not settled. */
  private readonly inFlight = new Set<Promise<void>>();
  /** A timed write failed and nothing has succeeded since: later failures are not reported again. */
  private failing = false;

  constructor(
    private readonly write: (groups: MarkGroup[]) => Promise<void>,
    private readonly clock: Clock,
    private readonly delayMs = 1000,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Rows whose stamps wait for a write to take them. */
  get waiting(): number {
    return this.groups.reduce((n, g) => n + g.ids.length, 0);
  }

  add(ids: number[], at: number): void {
    if (ids.length === 0) return;
    this.groups.push({ ids, at });
    this.timer ??= this.clock.setTimeout(() => {
      this.timer = null;
      this.flush().then(
        () => {
          this.failing = false;
        },
        (err: unknown) => {
          if (!this.failing) this.onError(err);
          this.failing = true;
        },
      );
    }, this.delayMs);
  }

  take(): CarriedMarks | null {
    if (this.groups.length === 0) return null;
    const groups = this.groups;
    this.groups = [];
    this.cancelTimer();
    let settled!: () => void;
    const done = new Promise<void>((resolve) => {
      settled = resolve;
    });
    this.inFlight.add(done);
    return {
      groups,
      settle: (committed) => {
        this.inFlight.delete(done);
        if (!committed) for (const g of groups) this.add(g.ids, g.at);
        settled();
      },
    };
  }

  /**
   * Resolves once every stamp taken so far is committed, writing the waiting ones itself. Rejects
   * when that write fails; the stamps then wait for the next try.
   */
  async flush(): Promise<void> {
    // Loop: a write can start while we wait (the timer's), and its stamps are in flight then too.
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    const carried = this.take();
    if (!carried) return;
    try {
      await this.write(carried.groups);
      carried.settle(true);
    } catch (err) {
      carried.settle(false);
      throw err;
    }
  }

  stop(): void {
    this.cancelTimer();
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
