/**
 * What each child process may see of the launcher's environment. Settings (ports, pins, GPIO_MODE,
 * LOG_LEVEL, TLS file names) pass to everyone: they are harmless and each service reads its own. A
 * credential, or a path to where credentials live, reaches only the processes this allow-list names, so a
 * compromised simulator (the largest parsing surface) holds no key of the controller, the relay node or
 * another broker account. A new credential: add its name to the services that need it.
 */

/** Every process the launcher starts. */
export type ChildName = 'broker' | 'controller' | 'relay-node' | 'notifier' | 'simulator' | 'dashboard';

/** Metrics credentials: every process serves /metrics. */
const METRICS = ['METRICS_TOKEN', 'METRICS_BASIC_AUTH'] as const;
/** The service's own broker login (set per service by the launcher). */
const MQTT_LOGIN = ['MQTT_URL', 'MQTT_USERNAME', 'MQTT_PASSWORD'] as const;

export const CHILD_CREDENTIALS: Readonly<Record<ChildName, readonly string[]>> = {
  // The broker reads the users file (hashes only) under DATA_DIR.
  // REDIS_URL may carry the backplane's password.
  broker: ['DATA_DIR', 'REDIS_URL', ...METRICS],
  controller: [
    'JWT_SECRET',
    'RELAYNODE_API_SECRET',
    'NOTIFIER_API_SECRET',
    // Signs the relay leases: the controller alone may hold it (relay nodes get the public half).
    'LEASE_SIGNING_KEY',
    'ADMIN_USERNAME',
    'ADMIN_PASSWORD',
    'DATABASE_URL',
    ...MQTT_LOGIN,
    ...METRICS,
  ],
  // Its settings file lives in DATA_DIR.
  // NOTIFIER_URLS carry bot tokens.
  'relay-node': ['RELAYNODE_API_SECRET', 'DATA_DIR', 'NOTIFIER_URLS', ...MQTT_LOGIN, ...METRICS],
  notifier: ['NOTIFIER_API_SECRET', 'DATABASE_URL', ...MQTT_LOGIN, ...METRICS],
  // Its own login and the file that keeps it, never the admin's.
  simulator: ['USERNAME', 'PASSWORD', 'DATA_DIR', ...MQTT_LOGIN, ...METRICS],
  dashboard: ['DASHBOARD_AUTH', 'DASHBOARD_SITES_AUTH', ...MQTT_LOGIN, ...METRICS],
};

/**
 * Names that carry a credential (or lead to one), known or not: the launcher's own secrets, the
 * broker passwords (`MQTT_PASSWORD_<ACCOUNT>`), URLs with a password in them, and whatever else the
 * user's shell holds that looks like one (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`).
 */
const CREDENTIAL_NAME =
  /SECRET|PASSWORD|PASSWD|TOKEN|PRIVATE|CREDENTIAL|API_KEY|_AUTH$|^(DATABASE_URL|MQTT_URL|REDIS_URL|NOTIFIER_URLS|MQTT_USERNAME|ADMIN_USERNAME|USERNAME|DATA_DIR)$/;

const ALL_CREDENTIALS = new Set(Object.values(CHILD_CREDENTIALS).flat());

export const isCredential = (name: string): boolean =>
  ALL_CREDENTIALS.has(name) || CREDENTIAL_NAME.test(name);

/**
 * The environment of one child: `base` (the launcher's environment and shared settings) without any
 * credential the child is not allowed, then `own` (what the launcher made for this child), held to
 * the same list.
 */
export function childEnv(
  name: ChildName,
  base: NodeJS.ProcessEnv,
  own: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  const allowed = new Set(CHILD_CREDENTIALS[name]);
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries({ ...base, ...own })) {
    if (value === undefined) continue;
    if (isCredential(key) && !allowed.has(key)) continue;
    out[key] = value;
  }
  return out;
}
