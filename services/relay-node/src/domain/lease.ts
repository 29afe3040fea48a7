import { randomBytes } from 'node:crypto';
import type { relaynode } from '@outpost/contracts';

/**
 * The heartbeat lease: decides whether a desired-state message may be executed. Pure apart from the
 * injected signature check and random source: no clock of its own, no transport. A relay is a
 * generator start input, so the asymmetry is deliberate: ON needs a lease the controller signed, newer
 * than everything applied, answering one of this node's recent challenges, and armed; OFF needs nothing.
 *
 * No rule here compares the controller's clock with the node's: a lease's duration is the difference
 * of the controller's own two stamps, counted from its arrival on the node's monotonic clock, and its
 * age is bounded by the challenge it answers, which this node issued on that same clock.
 */

export interface LeaseStamp {
  epoch: string;
  seq: number;
  /** Controller clock, ms: only `expires_at - issued_at` (the duration) is used. */
  issued_at: number;
  expires_at: number;
  challenge: string | null;
  sig: string;
}

export interface DesiredMessage {
  heartbeat_interval: number;
  armed: boolean;
  relay_on: boolean;
  /** Absent only for a REST heartbeat without lease fields. */
  lease?: LeaseStamp | undefined;
}

export type Verdict = relaynode.LeaseVerdict;

export const UNLEASED_REASON =
  'heartbeat without lease fields (epoch, seq, issued_at, expires_at, challenge, sig): only OFF and disarm are obeyed';
export const UNSIGNED_REASON =
  "lease signature does not verify against CONTROLLER_PUBLIC_KEY (forged, or another controller's key): only OFF and disarm are obeyed";

export interface Judgement {
  verdict: Verdict;
  reason: string | null;
  /** For a fresh lease: how long it holds from its arrival, ms. */
  durationMs?: number;
}

/** How many recent challenges a lease may answer: a controller that missed a few states still gets through. */
const KEPT_CHALLENGES = 8;
/** A challenge older than this many heartbeat intervals is no proof of a recent lease. */
const CHALLENGE_INTERVALS = 6;

/** The node's challenges, newest first, each with its issue time on the node's monotonic clock. */
export class Challenges {
  private readonly issued: { value: string; at: number }[] = [];

  constructor(private readonly random: () => string = () => randomBytes(16).toString('base64url')) {}

  /** The challenge the next lease should answer; a new one once the newest is a heartbeat interval old. */
  current(nowMs: number, intervalMs: number): string {
    const newest = this.issued[0];
    if (newest && nowMs - newest.at < intervalMs) return newest.value;
    return this.rotate(nowMs);
  }

  rotate(nowMs: number): string {
    const value = this.random();
    this.issued.unshift({ value, at: nowMs });
    if (this.issued.length > KEPT_CHALLENGES) this.issued.pop();
    return value;
  }

  /** True when `value` is one of the kept challenges, issued within the window. */
  recent(value: string | null, nowMs: number, intervalMs: number): boolean {
    if (value === null) return false;
    const window = CHALLENGE_INTERVALS * intervalMs;
    return this.issued.some((c) => c.value === value && nowMs - c.at <= window);
  }
}

export class LeaseOrder {
  private epoch: string | null = null;
  private seq: number | null = null;

  constructor(
    /** Verifies the controller's signature over the lease (the node's id and public key bound in). */
    private readonly verify: (msg: DesiredMessage, lease: LeaseStamp) => boolean,
    private readonly challenges: Challenges,
  ) {}

  get appliedEpoch(): string | null {
    return this.epoch;
  }

  get appliedSeq(): number | null {
    return this.seq;
  }

  /** Judges a message received at `nowMs` (node's monotonic clock) without changing anything. */
  judge(msg: DesiredMessage, nowMs: number): Judgement {
    const lease = msg.lease;
    // Without a lease nothing shows the message is recent or from the controller's current run: a
    // replayed or forged one must not be able to start the generator or keep it running.
    if (!lease) return { verdict: 'unleased', reason: UNLEASED_REASON };
    // Checked before the order: an unsigned message must not move it, or anyone with the relay key
    // could retire the controller's epoch and lock it out.
    if (!this.verify(msg, lease)) return { verdict: 'unsigned', reason: UNSIGNED_REASON };
    if (!this.isNewer(lease)) {
      return {
        verdict: 'stale',
        reason: `stale lease: epoch ${lease.epoch} seq ${lease.seq} is not newer than epoch ${this.epoch} seq ${this.seq}`,
      };
    }
    const intervalMs = msg.heartbeat_interval * 1000;
    if (!this.challenges.recent(lease.challenge, nowMs, intervalMs)) {
      return {
        verdict: 'expired',
        reason: `expired lease: seq ${lease.seq} answers no challenge this node issued in the last ${CHALLENGE_INTERVALS * msg.heartbeat_interval} s (held back, replayed, or the node restarted)`,
      };
    }
    const durationMs = leaseDurationMs(msg, lease);
    if (durationMs <= 0) {
      return { verdict: 'expired', reason: `expired lease: seq ${lease.seq} has no duration` };
    }
    return { verdict: 'fresh', reason: null, durationMs };
  }

  /** Records a fresh message as applied, so nothing at or below it is executed again. */
  accept(msg: DesiredMessage): void {
    const lease = msg.lease;
    if (!lease) return;
    this.epoch = lease.epoch;
    this.seq = lease.seq;
  }

  /** Epochs are boot counters: a higher one is a later controller run, a lower one never returns. */
  private isNewer(lease: LeaseStamp): boolean {
    if (this.epoch === null) return true;
    const order = compareEpochs(lease.epoch, this.epoch);
    if (order !== 0) return order > 0;
    return this.seq === null || lease.seq > this.seq;
  }
}

/** Orders two decimal epochs (at most 15 digits, exact as numbers). */
export function compareEpochs(a: string, b: string): number {
  return Math.sign(Number(a) - Number(b));
}

/**
 * A controller bug or a tampered message must not buy a long lease: the duration is capped at the
 * failsafe timeout the message itself implies.
 */
export function leaseDurationMs(msg: DesiredMessage, lease: LeaseStamp): number {
  const cap = timeoutForInterval(msg.heartbeat_interval) * 1000;
  return Math.min(lease.expires_at - lease.issued_at, cap);
}

/** Spec: the failsafe timeout is 3 × the heartbeat interval received. */
export function timeoutForInterval(intervalSeconds: number): number {
  return intervalSeconds * 3;
}
