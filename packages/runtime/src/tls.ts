import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from './config.js';

/** What a TLS listener needs: the certificate chain and its private key, both PEM. */
export interface ServerTls {
  cert: Buffer;
  key: Buffer;
}

function readVar(env: NodeJS.ProcessEnv, name: string): Buffer {
  const path = env[name]!;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(name, `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * TLS_CERT_FILE and TLS_KEY_FILE: both set, the listener speaks TLS; neither, plain. The files are
 * checked here, so a wrong path or a key of another certificate stops the start with one line naming
 * the variable instead of failing on the first handshake. Errors never quote the key.
 */
export function serverTlsFromEnv(env: NodeJS.ProcessEnv = process.env): ServerTls | null {
  const hasCert = Boolean(env.TLS_CERT_FILE);
  const hasKey = Boolean(env.TLS_KEY_FILE);
  if (!hasCert && !hasKey) return null;
  if (!hasCert) throw new ConfigError('TLS_CERT_FILE', 'required when TLS_KEY_FILE is set');
  if (!hasKey) throw new ConfigError('TLS_KEY_FILE', 'required when TLS_CERT_FILE is set');
  const cert = readVar(env, 'TLS_CERT_FILE');
  const key = readVar(env, 'TLS_KEY_FILE');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new ConfigError('TLS_CERT_FILE', `${env.TLS_CERT_FILE} is not a PEM certificate`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError('TLS_KEY_FILE', `${env.TLS_KEY_FILE} is not an unencrypted PEM private key`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new ConfigError(
      'TLS_KEY_FILE',
      `${env.TLS_KEY_FILE} is not the key of the certificate in TLS_CERT_FILE`,
    );
  }
  return { cert, key };
}
