import { relaynode } from '@outpost/contracts';
import { generateLeaseKeys, leasePrivateKey, signLease } from '@outpost/runtime/lease-keys';
import { EpochRecovery } from './epoch-recovery.js';
import type { LeaseView } from './relay-node-connection.js';
import type { RelayPort } from './types.js';
import {
  type AckSink,
  type ClockOffset,
  type HeartbeatOptions,
  LEASE_LOST,
  type LeaseLoss,
  confirmsOn,
  offsetFromEcho,
  standingRefusal,
} from './lease-types.js';

export type { AckSink, ClockOffset, DesiredSink, HeartbeatOptions, LeaseLoss } from './lease-types.js';

/** How many recent heartbeats keep their issue time, to date what the node reports it applied. */
const ISSUED_KEPT = 64;

/**
 * The relay lease: the controller's intent, signed, published every interval and at once on any
 * change (epoch from the database, increasing seq, a 3-interval duration; the node's rules are in
 * contracts' DesiredState). An ON intent the node does not confirm, or whose lease runs out unrenewed
 * (broker gone, process paused, node cut off), means the node's relay is OFF: the run is over
 * (comm_loss) and its ON is never re-sent, so a node that comes back hears OFF, never a stale ON.
 */
export class HeartbeatPublisher implements RelayPort {
  private epochValue: string;
  // One counter across epochs: a new epoch accepts any seq, and the per-seq records stay unambiguous.
  private seq = 0;
  private readonly sign: (input: Uint8Array) => string;
  private readonly nodeId: string;
  /** The newest challenge the node published; every lease answers it. */
  private challenge: string | null = null;
  /** seq of the first heartbeat of the current ON intent; null while the intent is OFF. */
  private intentOnSeq: number | null = null;
  private confirmed = false;
  private confirmTimer: unknown = null;
  private readonly recovery: EpochRecovery;
  /** Why the last heartbeat could not be published while connected; null once one is. */
  private publishFailure: string | null = null;
  /** The node's clock minus ours, from its echo; null until measured. Read-only outside. */
  clockOffset: ClockOffset | null = null;
  private lastEchoSeq: number | null = null;
  /** The node's newest state, as last received. Read-only outside. */
  nodeReport: relaynode.RelaynodeState | null = null;
  private timer: unknown = null;
  private last: relaynode.DesiredState | null = null;
  /** issued_at of the newest heartbeat the broker accepted. */
  private lastDeliveredAt: number | null = null;
  /** seq of the first delivered ON of the current lease; null while the intent is OFF. */
  private onSince: number | null = null;
  private leaseLost = false;
  private leaseTimer: unknown = null;
  /** issued_at of each recent seq. */
  private readonly issuedAt = new Map<number, number>();
  /** issued_at of the newest heartbeat of the current ON lease the node reported applied. */
  private lastAppliedAt: number | null = null;
  private appliedTimer: unknown = null;
  /** issued_at of the first heartbeat of the current ON intent while none of it was delivered. */
  private pendingOnAt: number | null = null;
  private pendingTimer: unknown = null;

  private intent: () => { armed: boolean; relay_on: boolean };

  constructor(private readonly opts: HeartbeatOptions) {
    // Until the state machine is wired, the only safe intent is disarmed and OFF.
    this.intent = opts.intent ?? (() => ({ armed: false, relay_on: false }));
    this.epochValue = opts.epoch ?? '1';
    this.nodeId = opts.nodeId ?? 'main';
    const key = opts.signer ? null : leasePrivateKey(generateLeaseKeys().privateKey);
    this.sign = opts.signer ?? ((input) => signLease(key!, input));
    const { recoverEpoch: recover, logger } = opts;
    const unverified = (reason: string) => this.opts.onUnverifiedReport?.(reason);
    this.recovery = new EpochRecovery({ recover, sign: this.sign, nodeId: this.nodeId, logger, unverified });
  }

  get epoch(): string {
    return this.epochValue;
  }

  setIntent(fn: () => { armed: boolean; relay_on: boolean }): void {
    this.intent = fn;
  }

  setHooks(
    hooks: Pick<HeartbeatOptions, 'onTick' | 'onLeaseLost' | 'onUnverifiedReport' | 'onPublishing'>,
  ): void {
    Object.assign(this.opts, hooks);
  }

  start(): void {
    this.timer = this.opts.clock.setInterval(() => {
      try {
        this.opts.onTick?.();
      } catch (err) {
        this.opts.logger.error({ err }, 'heartbeat tick failed');
      }
      this.beat().catch(() => undefined);
    }, this.opts.intervalSeconds * 1000);
  }

  stop(): void {
    if (this.timer !== null) this.opts.clock.clearInterval(this.timer);
    this.timer = null;
    if (this.leaseTimer !== null) this.opts.clock.clearTimeout(this.leaseTimer);
    this.leaseTimer = null;
    if (this.appliedTimer !== null) this.opts.clock.clearTimeout(this.appliedTimer);
    this.appliedTimer = null;
    this.clearPending();
    this.clearConfirmTimer();
  }

  /** True once something ends a run whose lease is lost (the relay node link is attached). */
  get watchesLease(): boolean {
    return this.opts.onLeaseLost !== undefined;
  }

  /**
   * The node's retained state says it applied `seq` of `epoch`. Once it has applied this run's ON, it
   * fails safe at that heartbeat's time plus the lease unless it applies a newer one: the ON lease is
   * lost then, even while the broker still takes every heartbeat.
   */
  applied(epoch: string | null, seq: number | null): void {
    // This run's first ON seq, not the first delivered one: the node's report can overtake the
    // broker's acknowledgement of the very heartbeat it applied.
    const onSeq = this.intentOnSeq;
    if (epoch !== this.epoch || seq === null || onSeq === null || seq < onSeq) return;
    const issued = this.issuedAt.get(seq);
    if (issued === undefined || (this.lastAppliedAt !== null && issued <= this.lastAppliedAt)) return;
    this.lastAppliedAt = issued;
    const { clock } = this.opts;
    if (this.appliedTimer !== null) clock.clearTimeout(this.appliedTimer);
    this.appliedTimer = clock.setTimeout(
      () => {
        this.appliedTimer = null;
        if (this.intentOnSeq === null || this.lastAppliedAt !== issued) return;
        if (this.intent().relay_on) this.markLeaseLost('expired');
      },
      issued + this.leaseMs - clock.now() + 1,
    );
  }

  get leaseMs(): number {
    return 3 * this.opts.intervalSeconds * 1000;
  }

  /** Epoch, newest seq and where the current ON lease began (for the connection rule). */
  leaseView(): LeaseView {
    return {
      epoch: this.epoch,
      lastSeq: this.last?.seq ?? null,
      onSinceSeq: this.onSince,
      lastChallenge: this.last?.challenge ?? null,
    };
  }

  /**
   * The node's retained state arrived (at `receivedAt`, controller clock): the challenge to answer,
   * whether it confirms the current ON, the clock echo, and an epoch of ours it has already passed.
   */
  nodeState(state: relaynode.RelaynodeState, receivedAt: number): void {
    this.nodeReport = state;
    if (state.challenge) this.challenge = state.challenge;
    const echo = state.clock;
    // Only an echo of a stamp this process sent: a forged or old one measures nothing.
    if (
      echo?.epoch === this.epoch &&
      echo.seq !== this.lastEchoSeq &&
      this.issuedAt.get(echo.seq) === echo.controller_ms
    ) {
      this.lastEchoSeq = echo.seq;
      this.clockOffset = offsetFromEcho(echo, receivedAt) ?? this.clockOffset;
    }
    if (confirmsOn(state, this.epoch, this.intentOnSeq)) {
      this.confirmed = true;
      this.clearConfirmTimer();
    }
    this.recovery.check(state, { epoch: this.epoch, seq: this.seq }, (epoch) => {
      this.epochValue = epoch;
      return this.beat();
    });
    this.applied(state.epoch, state.applied_seq);
  }

  /** The node reported the relay ON under a lease of the current ON intent. */
  get relayConfirmed(): boolean {
    return this.intentOnSeq !== null && this.confirmed;
  }

  /** An ON intent the node has not confirmed yet. */
  get confirmationPending(): boolean {
    return this.intent().relay_on && this.intentOnSeq !== null && !this.confirmed;
  }

  /** The node's refusal of one of our leases it has not since superseded. */
  refusal(): relaynode.LeaseRefusal | null {
    return standingRefusal(this.nodeReport, this.epoch);
  }

  get lastSent(): relaynode.DesiredState | null {
    return this.last;
  }

  available(): boolean {
    return this.opts.sink.connected;
  }

  async commandRelay(_on: boolean): Promise<void> {
    await this.beat();
  }

  async setArmed(_armed: boolean): Promise<void> {
    await this.beat();
  }

  /**
   * Publishes the current intent now; throws when the broker is unreachable. A connected controller
   * that cannot publish says so at once (`onPublishing`), with the error: the node's failsafe will
   * drop the relay, and the cause must not be a mystery.
   */
  async beat(): Promise<void> {
    const { sink } = this.opts;
    try {
      const payload = this.next();
      if (!sink.connected) throw new Error('MQTT broker not connected; heartbeat not sent');
      this.remember(payload);
      await sink.publish(payload);
      this.delivered(payload);
      this.publishing(null);
    } catch (err) {
      if (sink.connected) this.publishing((err as Error).message || String(err));
      throw err;
    }
  }

  private publishing(failure: string | null): void {
    if (failure === this.publishFailure) return;
    this.publishFailure = failure;
    if (failure) this.opts.logger.error({ reason: failure }, 'relay lease not published');
    this.opts.onPublishing?.(failure);
  }

  /**
   * Sends the current intent over another path (the relay node REST API while the broker is down),
   * which answers with the node's verdict. A lease refused for its challenge (the node restarted, or
   * ours is old) is signed again once with the challenge the answer carries. Throws unless applied.
   */
  async beatOver(sink: AckSink): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const payload = this.next();
      this.remember(payload);
      const ack = await sink.send(payload);
      if (ack.challenge) this.challenge = ack.challenge;
      if (ack.verdict === 'fresh') {
        this.delivered(payload);
        this.applied(this.epoch, payload.seq);
        if (ack.relay_on && this.intentOnSeq !== null && payload.seq >= this.intentOnSeq) {
          this.confirmed = true;
          this.clearConfirmTimer();
        }
        return;
      }
      if (ack.verdict !== 'expired' || attempt > 0) {
        throw new Error(`relay node did not apply the heartbeat: ${ack.reason ?? ack.verdict}`);
      }
    }
  }

  /** The next heartbeat of the current intent, signed; ON only while its lease holds. */
  private next(): relaynode.DesiredState {
    const { clock, intervalSeconds } = this.opts;
    const intent = this.intent();
    const issued = clock.now();
    if (!intent.relay_on) {
      this.onSince = null;
      this.leaseLost = false;
      this.lastAppliedAt = null;
      this.intentOnSeq = null;
      this.confirmed = false;
      this.clearPending();
      this.clearConfirmTimer();
    } else if (this.onSince !== null) {
      if (
        (this.lastDeliveredAt !== null && issued > this.lastDeliveredAt + this.leaseMs) ||
        (this.lastAppliedAt !== null && issued > this.lastAppliedAt + this.leaseMs)
      ) {
        this.markLeaseLost('expired');
      }
    } else if (!this.leaseLost) {
      if (this.pendingOnAt === null) this.armPending(issued);
      else if (issued > this.pendingOnAt + this.leaseMs) this.markLeaseLost('undelivered');
    }
    const seq = ++this.seq;
    if (intent.relay_on && this.intentOnSeq === null && !this.leaseLost) {
      this.intentOnSeq = seq;
      this.armConfirmTimer(issued);
    }
    const fields = {
      epoch: this.epoch,
      seq,
      issued_at: issued,
      expires_at: issued + this.leaseMs,
      heartbeat_interval: intervalSeconds,
      armed: intent.armed,
      relay_on: intent.relay_on && !this.leaseLost,
      challenge: this.challenge,
    };
    return { ...fields, sig: this.sign(relaynode.leaseSigningInput(this.nodeId, fields)) };
  }

  /** Ends an ON intent the node has not confirmed within one lease of its first heartbeat. */
  private armConfirmTimer(since: number): void {
    const { clock } = this.opts;
    this.clearConfirmTimer();
    this.confirmTimer = clock.setTimeout(
      () => {
        this.confirmTimer = null;
        if (this.confirmed || !this.intent().relay_on || !this.watchesLease) return;
        this.markLeaseLost(this.onSince === null ? 'undelivered' : 'unconfirmed');
      },
      since + this.leaseMs - clock.now() + 1,
    );
  }

  private clearConfirmTimer(): void {
    if (this.confirmTimer !== null) this.opts.clock.clearTimeout(this.confirmTimer);
    this.confirmTimer = null;
  }

  private remember(payload: relaynode.DesiredState): void {
    this.issuedAt.set(payload.seq, payload.issued_at);
    if (this.issuedAt.size > ISSUED_KEPT) this.issuedAt.delete(this.issuedAt.keys().next().value!);
  }

  /** A heartbeat reached the broker or the node; a late one (REST) never rolls the lease back. */
  private delivered(payload: relaynode.DesiredState): void {
    const issued = payload.issued_at;
    const newest = this.lastDeliveredAt === null || issued >= this.lastDeliveredAt;
    if (this.last === null || payload.seq > this.last.seq) this.last = payload;
    if (newest) this.lastDeliveredAt = issued;
    // An ON that lands after the intent turned OFF starts no lease: the OFF follows it.
    if (!payload.relay_on || !this.intent().relay_on || this.leaseLost) return;
    this.clearPending();
    if (this.onSince === null) this.onSince = payload.seq;
    if (newest) this.armLeaseTimer(issued);
  }

  /** Ends an ON intent that nothing delivered within one lease of its first heartbeat. */
  private armPending(since: number): void {
    const { clock } = this.opts;
    this.clearPending();
    this.pendingOnAt = since;
    this.pendingTimer = clock.setTimeout(
      () => {
        this.pendingTimer = null;
        if (this.pendingOnAt !== since || this.onSince !== null) return;
        if (this.intent().relay_on) this.markLeaseLost('undelivered');
      },
      since + this.leaseMs - clock.now() + 1,
    );
  }

  private clearPending(): void {
    if (this.pendingTimer !== null) this.opts.clock.clearTimeout(this.pendingTimer);
    this.pendingTimer = null;
    this.pendingOnAt = null;
  }

  /** Fires when the newest delivered ON lease expires unrenewed. */
  private armLeaseTimer(issued: number): void {
    const { clock } = this.opts;
    if (this.leaseTimer !== null) clock.clearTimeout(this.leaseTimer);
    this.leaseTimer = clock.setTimeout(
      () => {
        this.leaseTimer = null;
        if (this.onSince === null || this.leaseLost || this.lastDeliveredAt !== issued) return;
        if (this.intent().relay_on) this.markLeaseLost('expired');
      },
      issued + this.leaseMs - clock.now() + 1,
    );
  }

  private markLeaseLost(why: LeaseLoss): void {
    if (this.leaseLost) return;
    this.leaseLost = true;
    this.clearPending();
    const { leaseMs: lease_ms, lastDeliveredAt: last_delivered_at, lastAppliedAt: last_applied_at } = this;
    this.opts.logger.warn({ lease_ms, last_delivered_at, last_applied_at }, LEASE_LOST[why]);
    this.opts.onLeaseLost?.(why);
  }
}
