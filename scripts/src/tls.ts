import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@outpost/runtime/config';
import { writePrivateFile } from '@outpost/runtime/private-file';
import { serverTlsFromEnv } from '@outpost/runtime/tls';
import { isLoopbackHost } from './join-string.js';

/**
 * The launcher's TLS: which certificate every listener serves, which CA the services trust when
 * they call each other, and the local CA made on first run when the operator brings none.
 *
 *   TLS            auto (default): on unless HOST is a loopback address, or when TLS_CERT_FILE is set;
 *                  on; off
 *   TLS_CERT_FILE  the operator's server certificate (PEM, chain allowed) and TLS_KEY_FILE its key
 *   TLS_CA_FILE    the CA that signed it, when clients do not already trust it; with the local CA,
 *                  more CAs for the services to trust (a relay node host's, for RELAYNODE_URL)
 *   TLS_NAMES      extra host names or addresses for the generated server certificate, comma-separated
 */

export const TLS_DIR_NAME = 'tls';
/** A joined site's CA, as the join string carried it. */
export const SITE_CA_FILE_NAME = 'site-ca.pem';

export interface LaunchTls {
  on: boolean;
  /** For every child: the certificate to serve and the CAs to trust. */
  env: Record<string, string>;
  /** What the launcher itself trusts when it checks /health (undefined: the system's CAs). */
  ca: string | undefined;
  /** The CA's PEM, to hand to a relay node on another host; null for a certificate from a public CA. */
  caPem: string | null;
  /** Start-up lines; no secret in them. */
  lines: string[];
  /** Where the served certificate comes from, for a copy or a certificate of its own per unit (unit-tls.ts). */
  origin?: { kind: 'local-ca'; dir: string; names: string[] } | { kind: 'files'; cert: string; key: string };
}

export class TlsError extends Error {
  override name = 'TlsError';
}

type Mode = 'on' | 'off';

export function tlsMode(env: NodeJS.ProcessEnv, host: string): Mode {
  const raw = (env.TLS ?? '').trim().toLowerCase();
  if (raw === 'on' || raw === 'off') return raw;
  if (raw !== '' && raw !== 'auto') {
    throw new ConfigError('TLS', 'expected auto, on or off');
  }
  return env.TLS_CERT_FILE || !isLoopbackHost(host) ? 'on' : 'off';
}

/** Every name this host answers to: its host name, its addresses, and loopback. */
export function hostNames(host: string, extra: string[]): string[] {
  const names = new Set<string>(['localhost', '127.0.0.1', '::1']);
  const h = hostname();
  if (h) {
    names.add(h);
    if (!h.includes('.')) names.add(`${h}.local`);
  }
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (!a.address.startsWith('fe80:')) names.add(a.address);
  }
  if (host !== '0.0.0.0' && host !== '::') names.add(host);
  for (const n of extra) names.add(n);
  return [...names];
}

const covers = (cert: X509Certificate, name: string) =>
  /^[\d.]+$/.test(name) || name.includes(':')
    ? cert.checkIP(name) !== undefined
    : cert.checkHost(name) !== undefined;

/** Atomically, through a random O_EXCL | O_NOFOLLOW temporary file: a planted link is never followed. */
export function writePrivate(path: string, text: string, mode: number): void {
  writePrivateFile(path, text, mode);
}

const DAY_MS = 86_400_000;

/**
 * The local CA under DATA_DIR/tls (made once; its key never leaves ca.key, mode 0600) and a server
 * certificate for `names`, reissued when a name is missing or it is within 30 days of expiry.
 */
async function localCa(
  dir: string,
  names: string[],
): Promise<{ created: boolean; caPem: string; reissued: boolean }> {
  // Loaded only to make a certificate: a launcher that stays up on a Pi should not keep the X.509 library.
  const pki = () => import('@outpost/runtime/pki');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caCert = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca.key');
  let created = false;
  if (existsSync(caCert) !== existsSync(caKey)) {
    throw new TlsError(
      `${dir} holds only one of ca.pem and ca.key; restore the other, or remove both to make a new CA (every client must then trust the new one)`,
    );
  }
  if (!existsSync(caCert)) {
    const ca = await (await pki()).createCa({ commonName: `Outpost local CA (${hostname() || 'host'})` });
    writePrivate(caKey, ca.key, 0o600);
    writePrivate(caCert, ca.cert, 0o644);
    created = true;
  }
  const caPem = readFileSync(caCert, 'utf8');
  const ca = new X509Certificate(caPem);
  if (!ca.checkPrivateKey(createPrivateKey(readFileSync(caKey)))) {
    throw new TlsError(`${caKey} is not the key of ${caCert}`);
  }
  const reissued = await ensureServerCert(dir, { cert: caPem, key: readFileSync(caKey, 'utf8') }, names);
  return { created, caPem, reissued: reissued && !created };
}

/**
 * DIR/server.pem and DIR/server.key signed by `ca` for `names`, reissued when a name is missing, the CA
 * is another, or it is within 30 days of expiry; true when it was (re)issued now.
 */
export async function ensureServerCert(
  dir: string,
  ca: { cert: string; key: string },
  names: string[],
): Promise<boolean> {
  const caX = new X509Certificate(ca.cert);
  const serverCert = join(dir, 'server.pem');
  const serverKey = join(dir, 'server.key');
  let current: X509Certificate | null = null;
  try {
    current =
      existsSync(serverCert) && existsSync(serverKey) ? new X509Certificate(readFileSync(serverCert)) : null;
  } catch {
    current = null;
  }
  const fresh =
    current?.checkIssued(caX) === true &&
    current.verify(caX.publicKey) &&
    Date.parse(current.validTo) - Date.now() > 30 * DAY_MS &&
    names.every((n) => covers(current, n));
  if (fresh) return false;
  const server = await (await import('@outpost/runtime/pki')).issueServerCert(ca, {
    names,
    commonName: hostname() || 'localhost',
  });
  writePrivate(serverKey, server.key, 0o600);
  writePrivate(serverCert, server.cert, 0o644);
  return true;
}

/** NODE_EXTRA_CA_CERTS takes one file: the CAs to trust, with any the operator had set, in one bundle. */
function trustBundle(dir: string, pems: string[], env: NodeJS.ProcessEnv): string | undefined {
  const parts = [...pems];
  const path = join(dir, 'trust.pem');
  if (env.NODE_EXTRA_CA_CERTS && env.NODE_EXTRA_CA_CERTS !== path && existsSync(env.NODE_EXTRA_CA_CERTS)) {
    parts.push(readFileSync(env.NODE_EXTRA_CA_CERTS, 'utf8'));
  }
  if (parts.length === 0) return undefined;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writePrivate(path, `${parts.map((p) => p.trim()).join('\n')}\n`, 0o644);
  return path;
}

/**
 * Resolves the launcher's TLS. Off: children get no certificate (an operator's TLS_CERT_FILE is
 * withheld, so TLS=off means plain everywhere). On: the operator's files, checked here so a bad one
 * stops the start in one line, or the local CA's. Throws ConfigError or TlsError.
 */
export async function setupTls(opts: {
  env: NodeJS.ProcessEnv;
  host: string;
  /** The address the launcher and the services use to reach a listener on this host. */
  localHost: string;
  dataDir: string;
}): Promise<LaunchTls> {
  const { env, host, dataDir } = opts;
  const dir = join(dataDir, TLS_DIR_NAME);
  const siteCaPath = join(dir, SITE_CA_FILE_NAME);
  const siteCa = existsSync(siteCaPath) ? [readFileSync(siteCaPath, 'utf8')] : [];
  if (tlsMode(env, host) === 'off') {
    const trust = trustBundle(dir, siteCa, env);
    return {
      on: false,
      env: { TLS_CERT_FILE: '', TLS_KEY_FILE: '', ...(trust ? { NODE_EXTRA_CA_CERTS: trust } : {}) },
      ca: undefined,
      caPem: null,
      lines: [],
    };
  }
  const lines: string[] = [];
  let certFile: string;
  let keyFile: string;
  let caPem: string | null = null;
  let givenCa: string | null = null;
  let origin: LaunchTls['origin'];
  if (env.TLS_CA_FILE) {
    try {
      givenCa = readFileSync(env.TLS_CA_FILE, 'utf8');
      new X509Certificate(givenCa);
    } catch {
      throw new ConfigError('TLS_CA_FILE', `${env.TLS_CA_FILE} is not a readable PEM certificate`);
    }
  }
  if (env.TLS_CERT_FILE || env.TLS_KEY_FILE) {
    serverTlsFromEnv(env);
    certFile = env.TLS_CERT_FILE!;
    keyFile = env.TLS_KEY_FILE!;
    caPem = givenCa;
    const cert = new X509Certificate(readFileSync(certFile));
    if (!covers(cert, opts.localHost)) {
      throw new ConfigError(
        'TLS_CERT_FILE',
        `the certificate does not name ${opts.localHost}, the address the services use to reach each other on this host; add it, or set HOST to a name the certificate holds`,
      );
    }
    origin = { kind: 'files', cert: certFile, key: keyFile };
    lines.push(`  certificate   ${certFile} (TLS_CERT_FILE)`);
    if (caPem)
      lines.push(`  CA            ${env.TLS_CA_FILE}, SHA-256 ${new X509Certificate(caPem).fingerprint256}`);
  } else {
    const extra = (env.TLS_NAMES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const names = hostNames(host, extra);
    const made = await localCa(dir, names);
    caPem = made.caPem;
    certFile = join(dir, 'server.pem');
    keyFile = join(dir, 'server.key');
    origin = { kind: 'local-ca', dir, names };
    const fp = new X509Certificate(caPem).fingerprint256;
    lines.push(
      `  CA            ${join(dir, 'ca.pem')}${made.created ? ' (created now)' : ''}`,
      `  CA SHA-256    ${fp}`,
      `  certificate   ${certFile}${made.reissued ? ' (reissued)' : ''} for ${names.join(', ')}`,
      '  Trust the CA in browsers and clients, or pin the fingerprint above.',
    );
  }
  const trusted = [caPem, caPem === givenCa ? null : givenCa, ...siteCa].filter((p): p is string =>
    Boolean(p),
  );
  const trust = trustBundle(dir, trusted, env);
  return {
    on: true,
    env: { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, ...(trust ? { NODE_EXTRA_CA_CERTS: trust } : {}) },
    ca: trust ? readFileSync(trust, 'utf8') : undefined,
    caPem,
    lines,
    origin,
  };
}
