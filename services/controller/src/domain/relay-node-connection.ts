import type { RelayNodeConnectionStatus } from '@outpost/contracts';
import type { RelayReport } from './generator-controller.js';

/** What the relay node reports in its retained state (the fields the connection rule reads). */
export interface NodeReport {
  relay_on: boolean;
  armed: boolean;
  failsafe_triggered: boolean;
  physical_safety_engaged: boolean;
  applied_seq: number | null;
  epoch: string | null;
  /** The challenge the node's next lease must answer (absent on a node without signed leases). */
  challenge?: string | undefined;
}

/** What the controller has sent: its epoch, the newest seq, and where the current ON lease began. */
export interface LeaseView {
  epoch: string;
  lastSeq: number | null;
  /** seq of the first delivered ON of the current run's lease; null while the intent is OFF. */
  onSinceSeq: number | null;
  /** The challenge our newest heartbeat answered. */
  lastChallenge: string | null;
}

/**
 * The relay node connection rule (the spec's slave_connection_status). The node is connected while all
 * three hold:
 * 1. its availability is `online` (birth / last will),
 * 2. its retained state was received within 2 heartbeat intervals (the node republishes on every
 *    heartbeat it applies, so a live link refreshes it every interval),
 * 3. that state says it applied our epoch, and no 2 consecutive intervals passed without its
 *    `applied_seq` advancing (missed_heartbeat_count < 2).
 * `tick()` runs once per heartbeat interval, just before the periodic heartbeat: each interval in
 * which applied_seq did not advance counts one missed heartbeat; an advance resets the count.
 * After boot the status stays `unknown` until the rule holds or the link is shown down (node
 * offline, or 2 missed intervals). A node that comes back online counts only on a state it sends
 * after that: the one it left behind (still retained, still "fresh") may be a killed process's, and
 * connecting on it would report the link up, then down when the new process says it has no lease.
 */
export class RelayNodeConnection {
  private online: boolean | null = null;
  private node: NodeReport | null = null;
  private nodeAt: number | null = null;
  /** False from a return online until the node's next state: what came before belongs to its last session. */
  private stateSinceOnline = true;
  private checkedSeq: number | null = null;
  private missed = 0;
  private status: RelayNodeConnectionStatus = 'unknown';

  constructor(
    private readonly intervalMs: number,
    private readonly lease: () => LeaseView,
  ) {}

  get connectionStatus(): RelayNodeConnectionStatus {
    return this.status;
  }

  get missedHeartbeats(): number {
    return this.missed;
  }

  get lastReport(): NodeReport | null {
    return this.node;
  }

  /** The node's availability topic changed. */
  availability(online: boolean, now: number): RelayReport {
    if (online && this.online === false) this.stateSinceOnline = false;
    this.online = online;
    return this.evaluate(now);
  }

  /** A state message arrived (received at `now`, controller clock). */
  state(report: NodeReport, now: number): RelayReport {
    this.node = report;
    this.nodeAt = now;
    this.stateSinceOnline = true;
    const seq = this.ourSeq();
    // Evidence that heartbeats get through resets the count at once (a returning node reconnects
    // within one heartbeat); checkedSeq only moves on ticks so the next tick still sees an advance.
    if (seq !== null && (this.checkedSeq === null || seq > this.checkedSeq)) this.missed = 0;
    return this.evaluate(now);
  }

  /** Once per heartbeat interval, before the periodic heartbeat is sent. */
  tick(now: number): RelayReport {
    const seq = this.ourSeq();
    if (seq !== null && (this.checkedSeq === null || seq > this.checkedSeq)) this.missed = 0;
    else this.missed += 1;
    this.checkedSeq = seq;
    return this.evaluate(now);
  }

  /**
   * True when the node has not applied our newest heartbeat (rebooted, missed some, or refused it for
   * an old challenge) and has a challenge our newest did not answer: re-sync now. A node that keeps
   * refusing for another reason asks for nothing new, so this never loops faster than its challenges
   * change (about once per interval).
   */
  needsResync(): boolean {
    const lease = this.lease();
    const n = this.node;
    if (!n || this.online === false) return false;
    const appliedNewest =
      n.epoch === lease.epoch &&
      lease.lastSeq !== null &&
      n.applied_seq !== null &&
      n.applied_seq >= lease.lastSeq;
    if (appliedNewest) return false;
    if (n.challenge === undefined) return n.epoch !== lease.epoch;
    return n.challenge !== lease.lastChallenge;
  }

  private ourSeq(): number | null {
    const n = this.node;
    if (!n || n.epoch !== this.lease().epoch) return null;
    return n.applied_seq;
  }

  private evaluate(now: number): RelayReport {
    const fresh = this.nodeAt !== null && now - this.nodeAt <= 2 * this.intervalMs;
    const ours = this.ourSeq() !== null;
    const up = this.online === true && this.stateSinceOnline && fresh && ours && this.missed < 2;
    const shownDown = this.online === false || this.missed >= 2 || (this.nodeAt !== null && !fresh);
    if (up) this.status = 'connected';
    else if (this.status !== 'unknown' || shownDown) this.status = 'disconnected';
    return {
      ...this.nodeFacts(),
      connected: this.status === 'unknown' ? undefined : up,
      missed_heartbeat_count: this.missed,
    };
  }

  /** Facts taken from the node's state whatever the link status (EPO is physical; trust it at once). */
  private nodeFacts(): RelayReport {
    const n = this.node;
    if (!n) return {};
    const lease = this.lease();
    const ours = n.epoch === lease.epoch && n.applied_seq !== null;
    // A failsafe counts against the current run only when the node had applied this run's ON lease.
    const failsafe =
      n.failsafe_triggered &&
      ours &&
      lease.onSinceSeq !== null &&
      (n.applied_seq as number) >= lease.onSinceSeq;
    // The relay is compared with our intent only once the node has seen our newest heartbeat,
    // or when it acts on someone else's lease (an earlier controller process).
    const current = ours ? lease.lastSeq !== null && (n.applied_seq as number) >= lease.lastSeq : true;
    return {
      physical_safety_engaged: n.physical_safety_engaged,
      ...(current ? { relay_on: n.relay_on } : {}),
      ...(failsafe ? { failsafe_triggered: true } : {}),
    };
  }
}
