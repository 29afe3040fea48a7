import { timingSafeEqual } from 'node:crypto';
import { relaynode } from '@outpost/contracts';
import { EPOCH_EXHAUSTED, EPOCH_PASSED, laterEpoch } from './lease-types.js';
import type { DomainLogger } from './types.js';

/** How many refused epoch claims are remembered, so each is raised once. */
const CLAIMS_KEPT = 64;

export interface EpochRecoveryOptions {
  /** The next epoch above one the relay node has seen (the database's sequence moved past it). */
  recover?: ((seen: string) => Promise<string>) | undefined;
  /** The controller's lease signer, and the node the leases are for. */
  sign: (input: Uint8Array) => string;
  nodeId: string;
  logger: DomainLogger;
  /** A claim without our signature was ignored: why (raised once per claim). */
  unverified: (reason: string) => void;
}

/**
 * A node that has applied a later lease than ours (a restored backup, a second controller with the
 * same key) refuses everything we send as stale: the controller moves past it and sends at once. Only
 * on evidence it can check: the lease the node applied, with our own signature on it. A claim we never
 * signed (a forged report, a compromised node) moves nothing, so nothing the node's side can send takes
 * the epoch out of its encoding or stops the leases.
 */
export class EpochRecovery {
  private recovering = false;
  private readonly claimsSeen = new Set<string>();

  constructor(private readonly opts: EpochRecoveryOptions) {}

  /**
   * Looks at the node's state against our `epoch` and newest `seq`; `adopt` takes a new epoch (and
   * sends at once).
   */
  check(
    state: relaynode.RelaynodeState,
    ours: { epoch: string; seq: number },
    adopt: (epoch: string) => Promise<void>,
  ): void {
    const seen = state.epoch;
    const passed =
      laterEpoch(seen, ours.epoch) ||
      (seen === ours.epoch && state.applied_seq !== null && state.applied_seq > ours.seq);
    const recover = this.opts.recover;
    if (!passed || !recover || this.recovering) return;
    const evidence = state.applied_lease;
    if (
      !evidence ||
      evidence.epoch !== seen ||
      evidence.seq !== state.applied_seq ||
      !this.signedByUs(evidence)
    ) {
      this.unverifiedClaim(seen as string, state.applied_seq, ours.epoch);
      return;
    }
    this.recovering = true;
    const { logger } = this.opts;
    recover(seen as string)
      .then((epoch) => {
        if (!relaynode.LeaseEpoch.safeParse(epoch).success) {
          logger.error({ seen, epoch }, EPOCH_EXHAUSTED);
          return;
        }
        logger.warn({ seen, epoch }, EPOCH_PASSED);
        return adopt(epoch);
      })
      .catch((err: unknown) => logger.error({ err }, 'lease epoch recovery failed'))
      .finally(() => {
        this.recovering = false;
      });
  }

  /** Ed25519 signatures are deterministic: a lease is ours when signing its fields again gives its signature. */
  private signedByUs(lease: relaynode.DesiredState): boolean {
    const { sig, ...fields } = lease;
    const mine = Buffer.from(this.opts.sign(relaynode.leaseSigningInput(this.opts.nodeId, fields)));
    const theirs = Buffer.from(sig);
    return mine.length === theirs.length && timingSafeEqual(mine, theirs);
  }

  private unverifiedClaim(epoch: string, seq: number | null, ours: string): void {
    const claim = `${epoch}/${seq}`;
    if (this.claimsSeen.has(claim)) return;
    this.claimsSeen.add(claim);
    if (this.claimsSeen.size > CLAIMS_KEPT) this.claimsSeen.delete(this.claimsSeen.values().next().value!);
    const reason = `the relay node reports epoch ${epoch.slice(0, 20)} seq ${seq} without a lease this controller signed: ignored, the epoch stays ${ours}`;
    this.opts.logger.warn({ epoch: epoch.slice(0, 20), seq }, reason);
    this.opts.unverified(reason);
  }
}
