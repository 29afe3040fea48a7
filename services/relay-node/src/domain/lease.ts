/**
 * The heartbeat lease: decides whether a desired-state message may be executed. Pure: no clock of its
 * own, no transport. A relay is a generator start input, so the asymmetry is deliberate: ON needs a
 * message that is fresh (unexpired), newer than everything applied and armed; OFF needs nothing.
 */

export interface LeaseStamp {
  epoch: string;
  seq: number;
  /** Controller clock, ms. */
  issued_at: number;
  /** Controller clock, ms. */
  expires_at: number;
}

export interface DesiredMessage {
  heartbeat_interval: number;
  armed: boolean;
  relay_on: boolean;
  /** Absent only for a REST heartbeat without lease fields. */
  lease?: LeaseStamp | undefined;
}

/**
 * fresh: counts as a heartbeat and is applied in full. stale/expired/unleased: only its safe parts
 * (OFF, disarm), and the failsafe is not renewed.
 */
export type Verdict = 'fresh' | 'stale' | 'expired' | 'unleased';

export const UNLEASED_REASON =
  'heartbeat without lease fields (epoch, seq, issued_at, expires_at): only OFF and disarm are obeyed';

export interface Judgement {
  verdict: Verdict;
  reason: string | null;
}

/** How many superseded epochs are remembered; a returning old epoch is refused. */
const RETIRED_EPOCHS = 16;

export class LeaseOrder {
  private epoch: string | null = null;
  private seq: number | null = null;
  private readonly retired: string[] = [];

  get appliedEpoch(): string | null {
    return this.epoch;
  }

  get appliedSeq(): number | null {
    return this.seq;
  }

  /** Judges a message received at `nowMs` (node clock) without changing anything. */
  judge(msg: DesiredMessage, nowMs: number): Judgement {
    const lease = msg.lease;
    // Without a lease nothing shows the message is recent or from the controller's current run: a
    // replayed or forged one must not be able to start the generator or keep it running.
    if (!lease) return { verdict: 'unleased', reason: UNLEASED_REASON };
    if (!this.isNewer(lease)) {
      return {
        verdict: 'stale',
        reason: `stale message: epoch ${lease.epoch} seq ${lease.seq} is not newer`,
      };
    }
    const expiry = effectiveExpiry(msg, lease);
    if (nowMs > expiry) {
      return {
        verdict: 'expired',
        reason: `expired message: seq ${lease.seq} arrived ${nowMs - expiry} ms after its expiry (delayed, or the clocks differ: check NTP)`,
      };
    }
    return { verdict: 'fresh', reason: null };
  }

  /** Records a fresh message as applied, so nothing at or below it is executed again. */
  accept(msg: DesiredMessage): void {
    const lease = msg.lease;
    if (!lease) return;
    if (this.epoch !== null && this.epoch !== lease.epoch) {
      this.retired.push(this.epoch);
      if (this.retired.length > RETIRED_EPOCHS) this.retired.shift();
    }
    this.epoch = lease.epoch;
    this.seq = lease.seq;
  }

  private isNewer(lease: LeaseStamp): boolean {
    if (this.epoch === null) return !this.retired.includes(lease.epoch);
    if (lease.epoch === this.epoch) return this.seq === null || lease.seq > this.seq;
    return !this.retired.includes(lease.epoch);
  }
}

/**
 * A controller bug or a tampered message must not buy a long lease: expiry is capped at the failsafe
 * timeout the message itself implies.
 */
export function effectiveExpiry(msg: DesiredMessage, lease: LeaseStamp): number {
  const cap = lease.issued_at + timeoutForInterval(msg.heartbeat_interval) * 1000;
  return Math.min(lease.expires_at, cap);
}

/** Spec: the failsafe timeout is 3 × the heartbeat interval received. */
export function timeoutForInterval(intervalSeconds: number): number {
  return intervalSeconds * 3;
}
