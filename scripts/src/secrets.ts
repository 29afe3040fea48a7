import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeUser, type Role, USERS_FILE_NAME, writeUsersFile } from '@outpost/broker';
import { z } from 'zod';

export const SECRETS_FILE_NAME = 'secrets.json';

/** MQTT accounts the launcher creates: one per service, plus Home Assistant and read-only viewers. */
export const MQTT_ACCOUNTS: { username: string; role: Role; id: string }[] = [
  { username: 'controller', role: 'controller', id: '*' },
  { username: 'relaynode', role: 'relaynode', id: 'main' },
  { username: 'notifier', role: 'notifier', id: '*' },
  { username: 'simulator', role: 'simulator', id: 'main' },
  { username: 'dashboard', role: 'dashboard', id: '*' },
  { username: 'automation', role: 'automation', id: '*' },
  { username: 'viewer', role: 'viewer', id: '*' },
];

const Secrets = z.object({
  JWT_SECRET: z.string().min(32),
  RELAYNODE_API_SECRET: z.string().min(32),
  ADMIN_PASSWORD: z.string().min(12),
  mqtt: z.record(z.string(), z.string().min(16)),
});
export type Secrets = z.infer<typeof Secrets>;

const token = (bytes = 32) => randomBytes(bytes).toString('base64url');

function writePrivate(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/**
 * Secrets are generated on the first run and reused after, so tokens, the relay node's key and the
 * broker passwords stay valid across restarts. Returns whether this run created them.
 */
export function ensureSecrets(dataDir: string): { secrets: Secrets; created: boolean } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, SECRETS_FILE_NAME);
  let secrets: Secrets | null = null;
  if (existsSync(path)) {
    const parsed = Secrets.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success) throw new Error(`${path} is damaged; move it away to generate new secrets`);
    secrets = parsed.data;
  }
  const created = secrets === null;
  const next: Secrets = secrets ?? {
    JWT_SECRET: token(48),
    RELAYNODE_API_SECRET: token(32),
    ADMIN_PASSWORD: token(12),
    mqtt: {},
  };
  let changed = created;
  for (const account of MQTT_ACCOUNTS) {
    if (!next.mqtt[account.username]) {
      next.mqtt[account.username] = token(24);
      changed = true;
    }
  }
  if (changed) writePrivate(path, `${JSON.stringify(next, null, 2)}\n`);
  const usersPath = join(dataDir, USERS_FILE_NAME);
  if (changed || !existsSync(usersPath)) {
    writeUsersFile(
      usersPath,
      MQTT_ACCOUNTS.map((a) => makeUser(a.username, a.role, a.id, next.mqtt[a.username]!)),
    );
  }
  return { secrets: next, created };
}
