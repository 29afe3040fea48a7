import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Secrets, SecretError, SecretsFile } from './secrets.js';
import { writePrivate } from './tls.js';

/**
 * Under systemd the embedded PostgreSQL's unit reads only its own part of the secrets: its superuser's
 * and its login roles' passwords, in DATA_DIR/postgres-secrets.json (written by write-env.mjs, given to
 * that unit's user alone by install-pi.sh). secrets.json, with the JWT secret, the relay key and every
 * broker password, stays root's.
 */
export const POSTGRES_SECRETS_FILE_NAME = 'postgres-secrets.json';

const PostgresPart = SecretsFile.pick({ postgres: true }).required();

/** Writes (when changed) the embedded PostgreSQL's part of `secrets`, mode 0600. */
export function writePostgresSecrets(dataDir: string, secrets: Pick<Secrets, 'postgres'>): void {
  const path = join(dataDir, POSTGRES_SECRETS_FILE_NAME);
  const text = `${JSON.stringify({ postgres: secrets.postgres }, null, 2)}\n`;
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return;
  writePrivate(path, text, 0o600);
}

/** The embedded PostgreSQL's part, or null when there is no such file (a launcher's DATA_DIR). */
export function readPostgresSecrets(dataDir: string): Pick<Secrets, 'postgres'> | null {
  const path = join(dataDir, POSTGRES_SECRETS_FILE_NAME);
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new SecretError(`${path} is not valid JSON; run infra/systemd/write-env.mjs again`);
  }
  const parsed = PostgresPart.safeParse(raw);
  if (!parsed.success) throw new SecretError(`${path}: no PostgreSQL passwords in it`);
  return parsed.data;
}
