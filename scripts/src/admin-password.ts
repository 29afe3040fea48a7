/**
 * The admin password stays in clear in secrets.json only until the controller has made its first user
 * (it keeps a scrypt hash); then the launcher removes it and says so. Plain JSON, no zod: the resident
 * launcher calls it and stays small (launcher-imports.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from '@outpost/runtime/private-file';
import { SECRETS_FILE_NAME } from './secrets-file.js';

/** Removes ADMIN_PASSWORD from DATA_DIR/secrets.json; true when there was one to remove. */
export function forgetAdminPassword(dataDir: string, now: Date = new Date()): boolean {
  const path = join(dataDir, SECRETS_FILE_NAME);
  const secrets = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  if (secrets.ADMIN_PASSWORD === undefined) return false;
  delete secrets.ADMIN_PASSWORD;
  secrets.ADMIN_PASSWORD_REMOVED = now.toISOString();
  writePrivateFile(path, `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
  return true;
}
