import { relaynode } from '@outpost/contracts';
import { leasePublicKey, verifyLease } from '@outpost/runtime/lease-keys';
import type { DesiredMessage, LeaseStamp } from './lease.js';

export const NO_PUBLIC_KEY =
  'CONTROLLER_PUBLIC_KEY is not set: this node cannot verify the controller leases and keeps the relay OFF (join it again with the string from `npm run join-token` on the controller host)';

/** Verifies a lease's signature for this node with the controller's public key; no key: none verifies. */
export function leaseVerifier(
  nodeId: string,
  publicKey: string | undefined,
): (msg: DesiredMessage, lease: LeaseStamp) => boolean {
  if (!publicKey) return () => false;
  const key = leasePublicKey(publicKey);
  return (msg, lease) =>
    verifyLease(
      key,
      relaynode.leaseSigningInput(nodeId, {
        epoch: lease.epoch,
        seq: lease.seq,
        issued_at: lease.issued_at,
        expires_at: lease.expires_at,
        challenge: lease.challenge,
        heartbeat_interval: msg.heartbeat_interval,
        armed: msg.armed,
        relay_on: msg.relay_on,
      }),
      lease.sig,
    );
}
