import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { writePrivateFile } from '@outpost/runtime/private-file';
import { z } from 'zod';

/** The file under DATA_DIR that keeps the generated login when PASSWORD is unset. */
export const PASSWORD_FILE = 'simulator-password';

/** Same bounds as the PASSWORD variable. */
const StoredPassword = z.string().trim().min(1).max(200);

export interface KeptPassword {
  password: string;
  /** True when this call generated it (the only time it is printed). */
  created: boolean;
  path: string;
}

/**
 * The login used when PASSWORD is unset: generated on the first start and kept in `path` (mode 0600),
 * so the same password works after every restart. A missing, empty or unreadable-as-text file is
 * replaced by a new password.
 */
export function keptPassword(path: string, generate: () => string): KeptPassword {
  let existing: string | null = null;
  try {
    existing = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const parsed = existing === null ? null : StoredPassword.safeParse(existing);
  if (parsed?.success) {
    // A copy restored from a backup may have lost its mode; nobody else should read it.
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return { password: parsed.data, created: false, path };
  }
  const password = StoredPassword.parse(generate());
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Written beside and renamed, so a crash never leaves half a password behind.
  writePrivateFile(path, `${password}\n`, 0o600);
  return { password, created: true, path };
}
