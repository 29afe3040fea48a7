import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureServerCert, type LaunchTls, TLS_DIR_NAME, writePrivate } from './tls.js';

/**
 * Under systemd each unit that serves TLS runs as a user of its own, and reads a key no other unit can:
 * DATA_DIR/tls/<unit>/server.key. With the local CA every unit gets a certificate and key of its own
 * (so a unit broken into holds no key another unit serves with); with the operator's certificate
 * (TLS_CERT_FILE) each unit gets its own copy of it. install-pi.sh (data-dir-owners.sh) then gives the
 * key file to the unit's user alone, 0600, in a folder only root may write.
 */

/** The units that serve TLS: the broker (MQTTS, WSS) and every HTTP service. */
export const TLS_UNITS = [
  'broker',
  'controller',
  'relay-node',
  'notifier',
  'simulator',
  'dashboard',
] as const;
export type TlsUnit = (typeof TLS_UNITS)[number];

function copyIfChanged(from: string, to: string, mode: number): void {
  const text = readFileSync(from, 'utf8');
  if (existsSync(to) && readFileSync(to, 'utf8') === text) return;
  writePrivate(to, text, mode);
}

/** Each unit's TLS_CERT_FILE and TLS_KEY_FILE; empty when TLS is off. */
export async function unitTls(
  dataDir: string,
  tls: LaunchTls,
): Promise<Record<TlsUnit, Record<string, string>>> {
  const out = Object.fromEntries(TLS_UNITS.map((u) => [u, {}])) as Record<TlsUnit, Record<string, string>>;
  const origin = tls.on ? tls.origin : undefined;
  if (!origin) return out;
  const caKey = origin.kind === 'local-ca' ? readFileSync(join(origin.dir, 'ca.key'), 'utf8') : '';
  for (const unit of TLS_UNITS) {
    const dir = join(dataDir, TLS_DIR_NAME, unit);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    if (origin.kind === 'local-ca') {
      const ca = { cert: readFileSync(join(origin.dir, 'ca.pem'), 'utf8'), key: caKey };
      await ensureServerCert(dir, ca, origin.names);
    } else {
      copyIfChanged(origin.cert, join(dir, 'server.pem'), 0o644);
      copyIfChanged(origin.key, join(dir, 'server.key'), 0o600);
    }
    out[unit] = { TLS_CERT_FILE: join(dir, 'server.pem'), TLS_KEY_FILE: join(dir, 'server.key') };
  }
  return out;
}
