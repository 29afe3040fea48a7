import { closeSync, constants, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { relaynode } from '@outpost/contracts';
import { generateLeaseKeys, leasePrivateKey, publicKeyText, signLease } from '@outpost/runtime/lease-keys';

/**
 * The relay node's own Ed25519 key, made on the Pi at its first start and kept in
 * DATA_DIR/relay-node/report-key (0600). The node signs every state report with it; the controller pins
 * the public half on first contact and acts on no report that does not verify, so the node's broker
 * account (in the join string) cannot speak for the node.
 */
export interface ReportKey {
  /** The public half, raw, base64url: what the controller pins. */
  readonly publicKey: string;
  /** The state as published: the key's name and the signature over every other field. */
  sign(nodeId: string, state: relaynode.RelaynodeState): relaynode.RelaynodeState;
}

export function reportKeyFrom(privateKeyText: string): ReportKey {
  const key = leasePrivateKey(privateKeyText);
  const publicKey = publicKeyText(key);
  return {
    publicKey,
    sign(nodeId, state) {
      const { report_sig: _old, ...rest } = state;
      const named = { ...rest, node_key: publicKey };
      return { ...named, report_sig: signLease(key, relaynode.reportSigningInput(nodeId, named)) };
    },
  };
}

/** Reads the node's key, or makes it once (never replaces one: a new key is a new identity to pin). */
export function loadOrCreateReportKey(path: string): { key: ReportKey; created: boolean } {
  try {
    // O_NOFOLLOW: a link planted in place of the key is refused, not read.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return { key: reportKeyFrom(readFileSync(fd, 'utf8').trim()), created: false };
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const { privateKey } = generateLeaseKeys();
  // O_EXCL | O_NOFOLLOW: a link planted at this path is refused, and a racing start does not overwrite.
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, `${privateKey}\n`);
  } finally {
    closeSync(fd);
  }
  return { key: reportKeyFrom(privateKey), created: true };
}
