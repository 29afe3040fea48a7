import { relaynode } from '@outpost/contracts';
import { keyFingerprint, leasePublicKey, verifyLease } from '@outpost/runtime/lease-keys';

/**
 * Which of the relay node's state reports the controller may act on. The node signs each report with
 * its own key (made on the Pi); the controller pins that key at first contact, keeps it in its
 * database, and acts on no report that does not verify against it. So the node's broker account,
 * which the join string carries, cannot confirm a start, report an EPO, a failsafe or a refusal, hand
 * over a challenge, or claim an epoch: a forged report is ignored and raises
 * `relay_node_report_unverified`. A node re-installed with a new key is refused until an operator
 * forgets the pinned one (console, or DELETE /api/relaynode/key) after comparing fingerprints.
 */

/** Where the pinned key lives (the controller's database; memory in tests). */
export interface NodeKeyStore {
  get(nodeId: string): Promise<string | null>;
  pin(nodeId: string, publicKey: string, at: number): Promise<void>;
  forget(nodeId: string): Promise<void>;
}

export type ReportVerdict =
  | { ok: true; pinnedNow: boolean }
  | { ok: false; reason: string; code: 'unsigned' | 'other_key' | 'bad_signature' };

export interface PinnedKey {
  public_key: string;
  fingerprint: string;
}

export class NodeReportGate {
  private pinned: string | null = null;
  private verifier: ReturnType<typeof leasePublicKey> | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly nodeId: string,
    private readonly store: NodeKeyStore,
    private readonly now: () => number,
    private readonly onStoreError: (err: unknown) => void = () => {},
  ) {}

  /** Reads the pinned key (once at start). */
  async load(): Promise<void> {
    this.setPinned(await this.store.get(this.nodeId));
  }

  get pinnedKey(): PinnedKey | null {
    return this.pinned ? { public_key: this.pinned, fingerprint: keyFingerprint(this.pinned) } : null;
  }

  /** Resolves once the newest pin is written (or its failure reported). */
  written(): Promise<void> {
    return this.writing;
  }

  /** Forgets the pinned key: the next signed report pins its key. */
  async forget(): Promise<void> {
    await this.store.forget(this.nodeId);
    this.setPinned(null);
  }

  /**
   * Whether a report may be acted on; pins the key of the first signed report. Synchronous, so reports
   * are judged in the order they arrive; the pin is written behind (a failed write is retried at the
   * next first contact, as the key is pinned in memory meanwhile).
   */
  judge(state: relaynode.RelaynodeState): ReportVerdict {
    const key = state.node_key;
    const sig = state.report_sig;
    if (!key || !sig) {
      return {
        ok: false,
        code: 'unsigned',
        reason:
          'unsigned relay node report (a node of an earlier version, or a message from its broker account that the node did not sign)',
      };
    }
    if (this.pinned !== null && key !== this.pinned) {
      return {
        ok: false,
        code: 'other_key',
        reason: `relay node report signed with key ${keyFingerprint(key)}, not the pinned ${keyFingerprint(this.pinned)} (a forgery, or the node was re-installed: compare the fingerprint in its log, then forget the pinned key)`,
      };
    }
    let valid = false;
    try {
      const verifier = this.pinned !== null && this.verifier ? this.verifier : leasePublicKey(key);
      valid = verifyLease(verifier, relaynode.reportSigningInput(this.nodeId, state), sig);
    } catch {
      valid = false;
    }
    if (!valid) {
      return {
        ok: false,
        code: 'bad_signature',
        reason:
          'relay node report whose signature does not verify (altered, or forged with the broker account)',
      };
    }
    if (this.pinned !== null) return { ok: true, pinnedNow: false };
    this.setPinned(key);
    this.writing = this.store
      .pin(this.nodeId, key, this.now())
      .catch((err: unknown) => this.onStoreError(err));
    return { ok: true, pinnedNow: true };
  }

  private setPinned(key: string | null): void {
    this.pinned = key;
    this.verifier = key ? leasePublicKey(key) : null;
  }
}

/** A store in memory, for a controller without a database link and for tests. */
export class MemoryNodeKeyStore implements NodeKeyStore {
  private readonly keys = new Map<string, string>();
  async get(nodeId: string): Promise<string | null> {
    return this.keys.get(nodeId) ?? null;
  }
  async pin(nodeId: string, publicKey: string): Promise<void> {
    this.keys.set(nodeId, publicKey);
  }
  async forget(nodeId: string): Promise<void> {
    this.keys.delete(nodeId);
  }
}
