import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  timingSafeEqual,
  verify,
} from 'node:crypto';

/**
 * The controller's lease-signing key pair (Ed25519). The controller keeps the private key
 * (LEASE_SIGNING_KEY: PKCS#8 DER, base64url); relay nodes hold only the public key
 * (CONTROLLER_PUBLIC_KEY: the raw 32-byte key, base64url, 43 characters), so the relay key and the join
 * string can switch the relay OFF but never forge an ON.
 */
export interface LeaseKeyPair {
  privateKey: string;
  publicKey: string;
}

export const PUBLIC_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function generateLeaseKeys(): LeaseKeyPair {
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url'),
    publicKey: publicKeyText(privateKey),
  };
}

/** Throws a plain message (never the key) when the text is not an Ed25519 private key. */
export function leasePrivateKey(text: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: Buffer.from(text, 'base64url'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new Error('not an Ed25519 private key (PKCS#8 DER, base64url)');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 private key');
  return key;
}

export function leasePublicKey(text: string): KeyObject {
  if (!PUBLIC_KEY_PATTERN.test(text)) throw new Error('not an Ed25519 public key (43 characters, base64url)');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: text }, format: 'jwk' });
}

/** The public half of a private key, in CONTROLLER_PUBLIC_KEY's form. */
export function publicKeyText(key: KeyObject): string {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  return String(jwk.x);
}

export function signLease(key: KeyObject, input: Uint8Array): string {
  return sign(null, input, key).toString('base64url');
}

/** False for any signature that does not verify, however malformed. */
export function verifyLease(key: KeyObject, input: Uint8Array, signature: string): boolean {
  const sig = Buffer.from(signature, 'base64url');
  if (sig.length !== 64) return false;
  try {
    return verify(null, input, key, sig);
  } catch {
    return false;
  }
}

/**
 * A readable fingerprint of a public key: SHA-256 of the raw key, first 16 bytes in hex pairs. The
 * console and the relay node's log show it, so an operator can compare the pinned key with the Pi's.
 */
export function keyFingerprint(publicKey: string): string {
  const digest = createHash('sha256').update(Buffer.from(publicKey, 'base64url')).digest('hex');
  return (digest.slice(0, 32).match(/../g) ?? []).join(':');
}

/** True when `signature` is the one this key makes over `input` (Ed25519 signatures are deterministic). */
export function signedBy(key: KeyObject, input: Uint8Array, signature: string): boolean {
  const mine = Buffer.from(signLease(key, input));
  const theirs = Buffer.from(signature);
  return mine.length === theirs.length && timingSafeEqual(mine, theirs);
}
