import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { BUS_ROLES } from '@outpost/contracts/topic-routes';
import { writePrivateFile } from '@outpost/runtime/private-file';
import { z } from 'zod';

/** The file the launcher writes into DATA_DIR and the broker reads. */
export const USERS_FILE_NAME = 'mqtt-users.json';

/** The bus's roles, as the topic map (and so the ACL) knows them. */
export const ROLES = BUS_ROLES;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** Roles whose `id` may be `*` (act for any instance). A relay node or simulator always acts for one. */
export const ANY_ID_ROLES: readonly Role[] = [
  'controller',
  'dashboard',
  'notifier',
  'automation',
  'viewer',
  'feedback',
];

// scrypt cost: N=16384 r=8 p=1 needs 16 MiB, under Node's default maxmem of 32 MiB.
const SCRYPT = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

const hex = (bytes: number) =>
  z
    .string()
    .regex(/^[0-9a-f]+$/i, 'must be hex')
    .length(bytes * 2, `must be ${bytes * 2} hex characters`);

const InstanceId = z
  .string()
  .min(1)
  .refine(
    (s) => !/[/#+]/.test(s) && !s.includes('\u0000'),
    'must be one topic level (no "/", "+", "#") or "*"',
  );

export const MqttUser = z
  .object({
    username: z.string().min(1),
    role: Role,
    id: InstanceId,
    salt: hex(SALT_LENGTH),
    hash: hex(KEY_LENGTH),
  })
  .refine((u) => u.id !== '*' || ANY_ID_ROLES.includes(u.role), {
    message: 'id "*" is only allowed for controller, dashboard, notifier, automation, viewer and feedback',
    path: ['id'],
  });
export type MqttUser = z.infer<typeof MqttUser>;

export const UsersFile = z
  .object({ users: z.array(MqttUser) })
  .refine((f) => new Set(f.users.map((u) => u.username)).size === f.users.length, {
    message: 'usernames must be unique',
    path: ['users'],
  });
export type UsersFile = z.infer<typeof UsersFile>;

/** Who a connected client is, as the ACL sees it (no secrets). */
export interface Principal {
  username: string;
  role: Role;
  id: string;
}

export function hashPassword(password: string): { salt: string; hash: string } {
  const salt = randomBytes(SALT_LENGTH);
  const hash = scryptSync(password, salt, KEY_LENGTH, SCRYPT);
  return { salt: salt.toString('hex'), hash: hash.toString('hex') };
}

/** Async so a burst of logins does not stall the broker's event loop. */
export function verifyPassword(
  user: Pick<MqttUser, 'salt' | 'hash'>,
  password: string | Buffer,
): Promise<boolean> {
  const expected = Buffer.from(user.hash, 'hex');
  return new Promise((resolve) => {
    scrypt(password, Buffer.from(user.salt, 'hex'), KEY_LENGTH, SCRYPT, (err, derived) => {
      if (err || derived.length !== expected.length) return resolve(false);
      resolve(timingSafeEqual(derived, expected));
    });
  });
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(file)'}: ${i.message}`).join('; ');
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, context: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${context}: ${describe(parsed.error)}`);
  return parsed.data;
}

export function makeUser(username: string, role: Role, id: string, password: string): MqttUser {
  return parseOrThrow(MqttUser, { username, role, id, ...hashPassword(password) }, `MQTT user ${username}`);
}

/** Reads and validates a users file; throws an Error naming the file and each bad field. */
export function readUsersFile(path: string): UsersFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const reason =
      (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
    throw new Error(`${path}: ${reason}`);
  }
  return parseOrThrow(UsersFile, raw, path);
}

/** Writes the file atomically (temp file, fsync, rename) and readable by the owner only. */
export function writeUsersFile(path: string, users: UsersFile | MqttUser[]): void {
  const file = parseOrThrow(UsersFile, Array.isArray(users) ? { users } : users, path);
  mkdirSync(dirname(path), { recursive: true });
  // A random O_EXCL | O_NOFOLLOW temporary file: a link planted beside it is never written through.
  writePrivateFile(path, `${JSON.stringify(file, null, 2)}\n`, 0o600);
}
