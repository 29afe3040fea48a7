import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from '@outpost/runtime/private-file';
// The users module alone: the launcher stays small next to the services it runs.
import { makeUser, type Role, USERS_FILE_NAME, writeUsersFile } from '@outpost/broker/users';
import {
  generateLeaseKeys,
  leasePrivateKey,
  PUBLIC_KEY_PATTERN,
  publicKeyText,
} from '@outpost/runtime/lease-keys';
import { z } from 'zod';
import { DATABASE_ROLES } from './database-roles.js';
import { SECRETS_FILE_NAME } from './secrets-file.js';

export { SECRETS_FILE_NAME };

/**
 * MQTT accounts the launcher creates: one per service, plus Home Assistant, read-only viewers and the
 * running-feedback source (a smart plug or energy meter: it may publish that topic and nothing else).
 */
export const MQTT_ACCOUNTS: { username: string; role: Role; id: string }[] = [
  { username: 'controller', role: 'controller', id: '*' },
  { username: 'relaynode', role: 'relaynode', id: 'main' },
  { username: 'notifier', role: 'notifier', id: '*' },
  { username: 'simulator', role: 'simulator', id: 'main' },
  { username: 'dashboard', role: 'dashboard', id: '*' },
  { username: 'automation', role: 'automation', id: '*' },
  { username: 'viewer', role: 'viewer', id: '*' },
  { username: 'feedback', role: 'feedback', id: '*' },
];

export { DATABASE_ROLES };

/*
 * One rule per secret, used for the environment and for the file alike, so a value accepted once is
 * accepted again after it was remembered. The lower bounds are those of the services that read them,
 * raised where a short value is a weak key (an HS256 key of under 32 characters).
 */
const jwtSecret = z.string().min(32, 'must be at least 32 characters').max(512);
const relayKey = z.string().min(16, 'must be at least 16 characters').max(512);
const notifierKey = z.string().min(32, 'must be at least 32 characters').max(512);
const adminUsername = z.string().min(1).max(100);
const adminPassword = z.string().min(10, 'must be at least 10 characters').max(200);
const simulatorUsername = z.string().min(1).max(200);
const simulatorPassword = z.string().min(1).max(200);
const dashboardSitesPassword = z.string().min(10, 'must be at least 10 characters').max(200);
const mqttPassword = z.string().min(12, 'must be at least 12 characters').max(512);
const leaseSigningKey = z.string().refine((v) => {
  try {
    leasePrivateKey(v);
    return true;
  } catch {
    return false;
  }
}, 'expected an Ed25519 private key (PKCS#8 DER, base64url)');
const controllerPublicKeyText = z.string().regex(PUBLIC_KEY_PATTERN, 'expected 43 characters, base64url');

/** What a relay node was given by `--join`: where the controller's broker is, and for which site. */
export const JoinedSite = z.object({
  mqtt_url: z
    .string()
    .regex(/^(mqtts?|wss?|tcp):\/\/[^\s@/]+(\/[^\s@]*)?$/, 'expected mqtt://host:port, without credentials'),
  site: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  prefix: z.string().regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/),
});
export type JoinedSite = z.infer<typeof JoinedSite>;

export const SecretsFile = z.object({
  JWT_SECRET: jwtSecret,
  RELAYNODE_API_SECRET: relayKey,
  /** Signs the controller's calls to the notifier; only those two get it. */
  NOTIFIER_API_SECRET: notifierKey,
  /** The controller's relay-lease signing key; only the controller gets it. */
  LEASE_SIGNING_KEY: leaseSigningKey.optional(),
  /** On a host joined to another controller: that controller's public key, from the join string. */
  CONTROLLER_PUBLIC_KEY: controllerPublicKeyText.optional(),
  ADMIN_USERNAME: adminUsername.optional(),
  /** Until the controller has made its first user; then removed (ADMIN_PASSWORD_REMOVED). */
  ADMIN_PASSWORD: adminPassword.optional(),
  /** When the launcher removed the admin password: the controller keeps only its hash. */
  ADMIN_PASSWORD_REMOVED: z.string().optional(),
  SIMULATOR_USERNAME: simulatorUsername.optional(),
  SIMULATOR_PASSWORD: simulatorPassword.optional(),
  /** The dashboard's login for the generator sites (user `sites`): off loopback they need it. */
  DASHBOARD_SITES_PASSWORD: dashboardSitesPassword.optional(),
  mqtt: z.record(z.string(), mqttPassword),
  /** /metrics' bearer token, required by every service that listens beyond loopback (metricsEnv). */
  METRICS_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9_-]{32,512}$/)
    .optional(),
  join: JoinedSite.optional(),
  /** The embedded PostgreSQL: its superuser's password and one login role per data-owning service. */
  postgres: z
    .object({ password: z.string().min(16), roles: z.record(z.string(), z.string().min(16)) })
    .optional(),
});
export type Secrets = z.infer<typeof SecretsFile>;

export type Source = 'environment' | 'file' | 'generated' | 'default' | 'removed';

/** Where each secret in effect came from, for the launcher's start-up lines. Never holds a value. */
export interface SecretSources {
  JWT_SECRET: Source;
  RELAYNODE_API_SECRET: Source;
  NOTIFIER_API_SECRET: Source;
  ADMIN_USERNAME: Source;
  ADMIN_PASSWORD: Source;
  simulator_login: Source;
  dashboard_sites: Source;
  /** Per broker account. */
  mqtt: Record<string, Source>;
}

/** A set value that breaks its rule: the message names where it was set. */
export class SecretError extends Error {
  override name = 'SecretError';
}

const token = (bytes = 32) => randomBytes(bytes).toString('base64url');

// A random O_EXCL | O_NOFOLLOW temporary file, renamed: a link planted in DATA_DIR is never followed.
const writePrivate = (path: string, text: string): void => writePrivateFile(path, text, 0o600);

/** The environment variable that sets one broker account's password, e.g. MQTT_PASSWORD_AUTOMATION. */
export const mqttPasswordVariable = (username: string) => `MQTT_PASSWORD_${username.toUpperCase()}`;

function fromEnv(env: NodeJS.ProcessEnv, name: string, rule: z.ZodType<string>): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const parsed = rule.safeParse(raw);
  if (!parsed.success) {
    throw new SecretError(`Invalid environment variable ${name}: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data;
}

function readFile(path: string): Partial<Secrets> | null {
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new SecretError(`${path} is not valid JSON; move it away to generate new secrets`);
  }
  // A file written by `--join` alone holds only the relay node's part; the rest is filled in below.
  const parsed = SecretsFile.partial().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SecretError(`${path}: ${issue?.path.join('.')} ${issue?.message}`);
  }
  return parsed.data;
}

export interface Resolved {
  secrets: Secrets;
  sources: SecretSources;
  /** This run generated the admin password (the only value the launcher ever prints). */
  createdAdminPassword: boolean;
}

/**
 * Every secret follows one rule: the environment, then `DATA_DIR/secrets.json`, then generated. What is
 * in effect is written back to the file (0600), so a value set once keeps working after the variable
 * is removed, and the relay node key a controller was paired with survives restarts.
 */
export function resolveSecrets(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
  overrides: Partial<Secrets> = {},
): Resolved {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, SECRETS_FILE_NAME);
  const file = readFile(path);
  // Overrides (a join string) replace single broker accounts, not the whole set.
  const stored: Partial<Secrets> = {
    ...(file ?? {}),
    ...overrides,
    mqtt: { ...(file?.mqtt ?? {}), ...(overrides.mqtt ?? {}) },
  };

  const pick = (
    name: 'JWT_SECRET' | 'RELAYNODE_API_SECRET' | 'NOTIFIER_API_SECRET' | 'ADMIN_PASSWORD',
    rule: z.ZodType<string>,
    generate: () => string,
  ): [string, Source] => {
    const set = fromEnv(env, name, rule);
    if (set !== undefined) return [set, 'environment'];
    if (stored[name] !== undefined) return [stored[name]!, 'file'];
    return [generate(), 'generated'];
  };
  const [jwt, jwtSource] = pick('JWT_SECRET', jwtSecret, () => token(48));
  const [key, keySource] = pick('RELAYNODE_API_SECRET', relayKey, () => token(32));
  const [notifierApi, notifierApiSource] = pick('NOTIFIER_API_SECRET', notifierKey, () => token(48));
  // Once the controller has its first user the clear password is gone (forgetAdminPassword): nothing is
  // generated again, which would only be a stale password nobody can log in with.
  const removed = stored.ADMIN_PASSWORD === undefined && stored.ADMIN_PASSWORD_REMOVED !== undefined;
  const envAdminPw = fromEnv(env, 'ADMIN_PASSWORD', adminPassword);
  const [adminPw, adminPwSource]: [string | undefined, Source] =
    envAdminPw === undefined && removed
      ? [undefined, 'removed']
      : pick('ADMIN_PASSWORD', adminPassword, () => token(12));

  const envAdmin = fromEnv(env, 'ADMIN_USERNAME', adminUsername);
  const admin = envAdmin ?? stored.ADMIN_USERNAME;
  const adminSource: Source = envAdmin ? 'environment' : admin ? 'file' : 'default';

  // The simulator's login is its own pair only when a password is given: USERNAME alone is often
  // set by the desktop session and says nothing about the simulator. Without one the simulator gets a
  // password of its own: sharing the admin's would let whoever runs a sim rig log in to the generator.
  const simPassword = fromEnv(env, 'PASSWORD', simulatorPassword);
  const simUsername = simPassword ? fromEnv(env, 'USERNAME', simulatorUsername) : undefined;
  let simSource: SecretSources['simulator_login'] = 'generated';
  const simulator: Pick<Secrets, 'SIMULATOR_USERNAME' | 'SIMULATOR_PASSWORD'> = {};
  if (simPassword) {
    simulator.SIMULATOR_PASSWORD = simPassword;
    if (simUsername) simulator.SIMULATOR_USERNAME = simUsername;
    simSource = 'environment';
  } else if (stored.SIMULATOR_PASSWORD) {
    simulator.SIMULATOR_PASSWORD = stored.SIMULATOR_PASSWORD;
    if (stored.SIMULATOR_USERNAME) simulator.SIMULATOR_USERNAME = stored.SIMULATOR_USERNAME;
    simSource = 'file';
  } else {
    simulator.SIMULATOR_PASSWORD = token(12);
  }

  // The generator sites on the dashboard (running, armed, relay, EPO) are not for anyone on the LAN.
  const envSites = fromEnv(env, 'DASHBOARD_SITES_PASSWORD', dashboardSitesPassword);
  const sitesPassword = envSites ?? stored.DASHBOARD_SITES_PASSWORD ?? token(12);
  const sitesSource: Source = envSites
    ? 'environment'
    : stored.DASHBOARD_SITES_PASSWORD
      ? 'file'
      : 'generated';

  const mqtt: Record<string, string> = { ...(stored.mqtt ?? {}) };
  const mqttSources: Record<string, Source> = {};
  for (const account of MQTT_ACCOUNTS) {
    const set = fromEnv(env, mqttPasswordVariable(account.username), mqttPassword);
    if (set !== undefined) {
      mqtt[account.username] = set;
      mqttSources[account.username] = 'environment';
    } else if (mqtt[account.username]) {
      mqttSources[account.username] = 'file';
    } else {
      mqtt[account.username] = token(24);
      mqttSources[account.username] = 'generated';
    }
  }

  const leaseKey =
    fromEnv(env, 'LEASE_SIGNING_KEY', leaseSigningKey) ??
    stored.LEASE_SIGNING_KEY ??
    generateLeaseKeys().privateKey;
  // Generated whatever the bind, so a Prometheus credentials_file exists everywhere; required only
  // off loopback (metricsEnv).
  const metricsToken = stored.METRICS_TOKEN ?? token(32);

  const postgres = {
    password: stored.postgres?.password ?? token(24),
    roles: Object.fromEntries(
      DATABASE_ROLES.map((role) => [role, stored.postgres?.roles[role] ?? token(24)] as const),
    ),
  };

  const secrets: Secrets = {
    JWT_SECRET: jwt,
    RELAYNODE_API_SECRET: key,
    NOTIFIER_API_SECRET: notifierApi,
    LEASE_SIGNING_KEY: leaseKey,
    // A joined host keeps the controller's key from the join string; a controller host derives its own.
    CONTROLLER_PUBLIC_KEY:
      stored.join && stored.CONTROLLER_PUBLIC_KEY
        ? stored.CONTROLLER_PUBLIC_KEY
        : publicKeyText(leasePrivateKey(leaseKey)),
    ...(admin ? { ADMIN_USERNAME: admin } : {}),
    ...(adminPw !== undefined ? { ADMIN_PASSWORD: adminPw } : {}),
    ...(stored.ADMIN_PASSWORD_REMOVED && adminPwSource === 'removed'
      ? { ADMIN_PASSWORD_REMOVED: stored.ADMIN_PASSWORD_REMOVED }
      : {}),
    ...simulator,
    DASHBOARD_SITES_PASSWORD: sitesPassword,
    mqtt,
    METRICS_TOKEN: metricsToken,
    ...(stored.join ? { join: stored.join } : {}),
    postgres,
  };
  const text = JSON.stringify(secrets, null, 2);
  if (text !== JSON.stringify(file, null, 2)) writePrivate(path, `${text}\n`);
  // The same token for a scraper's credentials_file (infra/prometheus), readable by the owner only.
  // Written when it is new (not read back: under systemd only root may read it, and the embedded
  // PostgreSQL's unit reads secrets.json too).
  const tokenPath = join(dataDir, METRICS_TOKEN_FILE_NAME);
  if (file?.METRICS_TOKEN !== metricsToken || !existsSync(tokenPath))
    writePrivate(tokenPath, `${metricsToken}\n`);
  const usersPath = join(dataDir, USERS_FILE_NAME);
  const mqttChanged = JSON.stringify(file?.mqtt ?? {}) !== JSON.stringify(mqtt);
  if (mqttChanged || !existsSync(usersPath)) {
    writeUsersFile(
      usersPath,
      MQTT_ACCOUNTS.map((a) => makeUser(a.username, a.role, a.id, mqtt[a.username]!)),
    );
  }
  return {
    secrets,
    sources: {
      JWT_SECRET: jwtSource,
      RELAYNODE_API_SECRET: keySource,
      NOTIFIER_API_SECRET: notifierApiSource,
      ADMIN_USERNAME: adminSource,
      ADMIN_PASSWORD: adminPwSource,
      simulator_login: simSource,
      dashboard_sites: sitesSource,
      mqtt: mqttSources,
    },
    createdAdminPassword: adminPwSource === 'generated',
  };
}

/** Beside secrets.json: the metrics token alone, for Prometheus' `credentials_file`. */
export const METRICS_TOKEN_FILE_NAME = 'metrics-token';

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * The metrics credential every process gets: the user's METRICS_TOKEN or METRICS_BASIC_AUTH when set;
 * otherwise, on a listener beyond loopback, the generated token, so `/metrics` (relay, armed, EPO,
 * lockout) is not open to the LAN. On loopback /metrics stays open.
 */
export function metricsEnv(host: string, env: NodeJS.ProcessEnv, secrets: Secrets): Record<string, string> {
  if (env.METRICS_TOKEN || env.METRICS_BASIC_AUTH) return {};
  if (LOOPBACK_HOST.test(host.replace(/^\[|\]$/g, ''))) return {};
  return secrets.METRICS_TOKEN ? { METRICS_TOKEN: secrets.METRICS_TOKEN } : {};
}

/**
 * Secrets from the file, generated where missing; the environment is not read. Used by tools that
 * write configuration for other processes (systemd environment files) and by tests.
 */
export function ensureSecrets(dataDir: string): { secrets: Secrets; created: boolean } {
  const { secrets, createdAdminPassword } = resolveSecrets(dataDir);
  return { secrets, created: createdAdminPassword };
}

/**
 * The public key this host's relay node trusts: the joined controller's (from the join string), else
 * the half of this host's own signing key.
 */
export function controllerPublicKey(
  secrets: Pick<Secrets, 'LEASE_SIGNING_KEY' | 'CONTROLLER_PUBLIC_KEY'>,
): string {
  if (secrets.CONTROLLER_PUBLIC_KEY) return secrets.CONTROLLER_PUBLIC_KEY;
  if (!secrets.LEASE_SIGNING_KEY) throw new Error('no lease signing key in the secrets');
  return publicKeyText(leasePrivateKey(secrets.LEASE_SIGNING_KEY));
}
