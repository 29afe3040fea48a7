// @peculiar/x509 resolves its algorithms through tsyringe, which needs this polyfill loaded first.
import 'reflect-metadata';
import { webcrypto, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

/**
 * A small local certificate authority: one CA and the server certificates it signs, for a site that
 * has no certificates of its own. Kept apart from the runtime's index so that no service loads it.
 * ECDSA P-256 keeps the CA short enough to travel inside a join string.
 */

export interface PemPair {
  /** PEM certificate. */
  cert: string;
  /** PEM PKCS#8 private key. */
  key: string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

type Key = webcrypto.CryptoKey;
type KeyPair = webcrypto.CryptoKeyPair;
type X509Keys = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'];
type X509Key = X509Keys['privateKey'];

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

function pemKey(der: ArrayBuffer): string {
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function importKey(pem: string): Promise<Key> {
  const der = x509.PemConverter.decodeFirst(pem);
  return webcrypto.subtle.importKey('pkcs8', der, ALG, false, ['sign']);
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  // Back-dated an hour, so a peer whose clock runs a little behind still accepts a fresh certificate.
  const notBefore = new Date(Date.now() - 3_600_000);
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) };
}

const escapeDn = (s: string) => s.replace(/([,+"\\<>;=])/g, '\\$1');

/** A new CA: a self-signed certificate that may sign server certificates, and nothing below them. */
export async function createCa(opts: { commonName: string; days?: number }): Promise<PemPair> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as KeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${escapeDn(opts.commonName)}`,
    keys: keys as unknown as X509Keys,
    signingAlgorithm: ALG,
    ...validity(opts.days ?? 3650),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as unknown as X509Key),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: pemKey(key) };
}

/** A server certificate signed by `ca`, valid for each of `names` (host names and IP addresses). */
export async function issueServerCert(
  ca: PemPair,
  opts: { names: string[]; commonName?: string; days?: number },
): Promise<PemPair> {
  if (opts.names.length === 0) throw new Error('a server certificate needs at least one name');
  const caCert = new x509.X509Certificate(ca.cert);
  const signingKey = await importKey(ca.key);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as KeyPair;
  const san = opts.names.map((value) => ({ type: isIP(value) ? ('ip' as const) : ('dns' as const), value }));
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${escapeDn(opts.commonName ?? opts.names[0]!)}`,
    issuer: caCert.subject,
    publicKey: keys.publicKey as unknown as X509Key,
    signingKey: signingKey as unknown as X509Key,
    signingAlgorithm: ALG,
    ...validity(opts.days ?? 825),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(san),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as unknown as X509Key),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: pemKey(key) };
}

/** SHA-256 of the first certificate's DER, as colon-separated upper-case hex (what browsers show). */
export function certFingerprint(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}
