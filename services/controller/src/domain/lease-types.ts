import { relaynode } from '@outpost/contracts';
import type { Clock } from './clock.js';
import type { DomainLogger } from './types.js';

/** The relay lease's ports and options (heartbeat-lease.ts), and the clock-offset reading. */

/** A path that answers each heartbeat with the node's verdict (the relay node REST API). */
export interface AckSink {
  send(payload: relaynode.DesiredState): Promise<relaynode.HeartbeatAck>;
}

/** Where desired states go (the relaynodeDesired topic); publish throws while disconnected. */
export interface DesiredSink {
  readonly connected: boolean;
  publish(payload: relaynode.DesiredState): Promise<void>;
}

export interface HeartbeatOptions {
  sink: DesiredSink;
  clock: Clock;
  logger: DomainLogger;
  intervalSeconds: number;
  /** The controller's current intent (settable later with setIntent). */
  intent?: () => { armed: boolean; relay_on: boolean };
  /** Runs once per interval just before the periodic heartbeat (the connection rule's tick). */
  onTick?: () => void;
  /**
   * The ON lease ran out: 'expired', without a delivered renewal (the node's failsafe has dropped the
   * relay); 'undelivered', before any of the run's ON reached the node (a start while the broker was down).
   */
  onLeaseLost?: (why: LeaseLoss) => void;
  /** The epoch of this controller run (the database's lease_epoch sequence). */
  epoch?: string;
  /** A new epoch above one the relay node has seen (the sequence moved past it). */
  recoverEpoch?: (seen: string) => Promise<string>;
  /** The node claimed an epoch (or seq) past ours without our signature on it: ignored; why. */
  onUnverifiedReport?: (reason: string) => void;
  /** A connected controller could not publish a lease (the error), or can again (null). */
  onPublishing?: (failure: string | null) => void;
  /** The relay node the leases are for: its id is bound into the signature. */
  nodeId?: string;
  /** Signs a lease's bytes (LEASE_SIGNING_KEY); without one, a key of this process only. */
  signer?: (input: Uint8Array) => string;
}

/**
 * 'unconfirmed': the broker took the run's ON but the node never reported applying it within the
 * lease (cut off, refusing it, or an earlier version): its relay is OFF, so the run is over.
 */
export type LeaseLoss = 'expired' | 'undelivered' | 'unconfirmed';

/** What the log says when an ON lease is lost, by why. */
export const LEASE_LOST: Record<LeaseLoss, string> = {
  undelivered: 'relay ON not delivered within the lease of the start: the relay stays OFF and the run ends',
  unconfirmed:
    'relay ON not confirmed by the relay node within the lease of the start: the relay is OFF and the run ends',
  expired:
    'relay lease expired without a heartbeat delivered and applied: the relay node failsafe has dropped the relay',
};

/** The node's clock minus the controller's, from the NTP-style echo in the node's state. */
export interface ClockOffset {
  offset_ms: number;
  rtt_ms: number;
  measured_at: number;
}

/** An echo whose round trip took longer than this says more about the network than the clocks. */
const MAX_OFFSET_RTT_MS = 5_000;

/**
 * NTP-style: the controller sent `controller_ms` (t1), the node received it at `received_ms` (t2) and
 * sent its state at `sent_ms` (t3), both on its wall clock; the controller read it at `t4`. Null when
 * the round trip is negative or too long to say anything about the clocks.
 */
export function offsetFromEcho(echo: relaynode.ClockEcho, t4: number): ClockOffset | null {
  const t1 = echo.controller_ms;
  const rtt = t4 - t1 - (echo.sent_ms - echo.received_ms);
  if (rtt < 0 || rtt > MAX_OFFSET_RTT_MS) return null;
  return {
    offset_ms: Math.round((echo.received_ms - t1 + (echo.sent_ms - t4)) / 2),
    rtt_ms: rtt,
    measured_at: t4,
  };
}

/** The node's refusal of one of `epoch`'s leases (or of any signature) that it has not since superseded. */
export function standingRefusal(
  node: relaynode.RelaynodeState | null,
  epoch: string,
): relaynode.LeaseRefusal | null {
  const r = node?.refusal;
  if (!r || !node) return null;
  const ours = r.epoch === epoch || r.verdict === 'unsigned';
  const superseded =
    node.epoch === epoch && node.applied_seq !== null && r.seq !== null && node.applied_seq > r.seq;
  return ours && !superseded ? r : null;
}

/** The node reports the relay ON under a lease of ours at or past the ON intent's first heartbeat. */
export function confirmsOn(state: relaynode.RelaynodeState, epoch: string, onSeq: number | null): boolean {
  return (
    state.epoch === epoch &&
    onSeq !== null &&
    state.applied_seq !== null &&
    state.applied_seq >= onSeq &&
    state.relay_on
  );
}

export const EPOCH_EXHAUSTED =
  'the relay node had applied the highest lease epoch there is (15 digits): leases go on in the current epoch; reset the relay node (restart it) to continue';

export const EPOCH_PASSED =
  'the relay node had applied a later lease epoch (a restored backup, or another controller with this key): continuing with a new epoch';

/** `seen` (what the node reports) is a boot counter above `ours`. */
export function laterEpoch(seen: string | null, ours: string): boolean {
  return seen !== null && relaynode.LeaseEpoch.safeParse(seen).success && Number(seen) > Number(ours);
}
