import { relaynode } from '@outpost/contracts';
import { generateLeaseKeys, leasePrivateKey, signLease } from '@outpost/runtime/lease-keys';
import { Challenges } from '../src/domain/lease.js';

/**
 * A test controller's signing keys (the node under test trusts the public half), and a challenge source
 * whose one challenge never goes stale, for suites that are not about a lease's age. The lease suites
 * and the process tests use the node's real challenges.
 */
export const TEST_LEASE_KEYS = generateLeaseKeys();
const privateKey = leasePrivateKey(TEST_LEASE_KEYS.privateKey);

export const TEST_CHALLENGE = 'test-challenge-0000001';

export class FixedChallenges extends Challenges {
  constructor() {
    super(() => TEST_CHALLENGE);
  }
  override current(): string {
    return TEST_CHALLENGE;
  }
  override recent(value: string | null): boolean {
    return value === TEST_CHALLENGE;
  }
}

type Intent = { heartbeat_interval: number; armed: boolean; relay_on: boolean };

/** Signs a lease for `nodeId` with the test controller's key. */
export function sign(
  nodeId: string,
  fields: Omit<relaynode.DesiredState, 'sig'>,
  key = privateKey,
): relaynode.DesiredState {
  return { ...fields, sig: signLease(key, relaynode.leaseSigningInput(nodeId, fields)) };
}

let count = 0;
/** Each call opens a new, higher epoch, as a restarted controller would. */
const epochBase = Date.now() * 10;

/**
 * Lease fields for a REST heartbeat, signed for node `main`: issued at `now`, lasting 3 × the interval,
 * answering `challenge` (the fixed test challenge unless given).
 */
export function leased<T extends Intent>(
  hb: T,
  now = Date.now(),
  opts: { challenge?: string | null; nodeId?: string; epoch?: string; seq?: number } = {},
) {
  count += 1;
  return sign(opts.nodeId ?? 'main', {
    heartbeat_interval: hb.heartbeat_interval,
    armed: hb.armed,
    relay_on: hb.relay_on,
    epoch: opts.epoch ?? String(epochBase + count),
    seq: opts.seq ?? 1,
    issued_at: now,
    expires_at: now + hb.heartbeat_interval * 3000,
    challenge: opts.challenge === undefined ? TEST_CHALLENGE : opts.challenge,
  });
}
