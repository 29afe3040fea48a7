/**
 * Everything `npm start` decides before it starts a process: the environment and command line checked,
 * a `--join` applied, the secrets resolved (and written), the services chosen and TLS set up. It runs in
 * a one-shot child (launch-plan-main.ts) and answers with a plan; the launcher that stays resident then
 * only starts, watches and stops processes.
 */
import { join, resolve } from 'node:path';
import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { ConfigError, parseConfig } from '@outpost/runtime/config';
import { z } from 'zod';
import { applyJoin } from './join.js';
import { JoinError } from './join-string.js';
import {
  METRICS_TOKEN_FILE_NAME,
  metricsEnv,
  resolveSecrets,
  SECRETS_FILE_NAME,
  type SecretSources,
  SecretError,
  type Secrets,
} from './secrets.js';
import { availableServices, DASHBOARD_SITES_USER, mainFile, SERVICES } from './services.js';
import { setupTls, TlsError } from './tls.js';

const Env = z.object({
  MQTT_URL: z
    .string()
    .regex(/^(mqtts?|wss?|tcp):\/\/.+/, 'expected mqtt://host:port')
    .optional(),
  MQTT_PORT: z.string().regex(/^\d+$/, 'expected a port number').optional(),
  MQTT_WS_PORT: z.string().regex(/^\d+$/, 'expected a port number').optional(),
  MQTT_TOPIC_PREFIX: z.string().default(DEFAULT_PREFIX),
  DATA_DIR: z.string().default('./data'),
  HOST: z.string().default('0.0.0.0'),
  START_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
});

const PORT_VARIABLES = [
  'CONTROLLER_PORT',
  'RELAYNODE_PORT',
  'NOTIFIER_PORT',
  'SIMULATOR_PORT',
  'DASHBOARD_PORT',
];

/** A reason the stack cannot start, said in one line. */
export class LaunchError extends Error {
  override name = 'LaunchError';
}

export interface LaunchPlan {
  dataDir: string;
  host: string;
  /** The address the launcher and the services use to reach a listener on this host. */
  loopback: string;
  /** An external or joined broker; unset: the launcher runs the embedded one. */
  mqttUrl?: string;
  /** MQTT_URL was set (not a joined broker). */
  externalBroker: boolean;
  /** Credentials in MQTT_URL or an explicit MQTT_USERNAME win over the generated accounts. */
  externalCredentials: boolean;
  mqttPort?: string;
  mqttWsPort?: string;
  prefix: string;
  /** RELAYNODE_ID for a joined host that has not set one. */
  relayNodeId?: string;
  /** The joined site, when this host is paired by --join. */
  joinedSite?: string;
  timeoutMs: number;
  /** Services to start, in start order. */
  services: string[];
  secrets: Secrets;
  adminUsername: string;
  /** The `login:` hint printed beside a service's address. */
  loginHints: Record<string, string>;
  tls: { on: boolean; env: Record<string, string>; ca: string | undefined };
  /** METRICS_TOKEN for every process when it listens beyond loopback (secrets.ts, metricsEnv). */
  metricsEnv: Record<string, string>;
}

/** Service names and `--join <string>` (or `--join=<string>`) from the command line. */
function parseArgs(argv: string[]): { names: string[]; join?: string } {
  const names: string[] = [];
  let join: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--join') {
      join = argv[++i];
      if (!join)
        throw new LaunchError(
          '--join needs the string printed by `npm run join-token` on the controller host',
        );
    } else if (a.startsWith('--join=')) join = a.slice('--join='.length);
    else if (a.startsWith('-')) throw new LaunchError(`unknown option ${a}`);
    else names.push(a);
  }
  return join === undefined ? { names } : { names, join };
}

const FROM: Record<string, string> = {
  environment: 'from the environment',
  file: 'from secrets.json',
  generated: 'generated',
  default: 'default',
  removed: 'not kept (removed after the first start; the controller keeps its hash)',
};

/** Where each secret came from, one line each; values never appear here. */
function describeSources(sources: SecretSources): string[] {
  const accounts = Object.entries(sources.mqtt);
  const set = accounts.filter(([, src]) => src === 'environment').map(([u]) => u);
  const made = accounts.filter(([, src]) => src === 'generated').map(([u]) => u);
  const broker = [
    set.length ? `${set.join(', ')} from the environment` : '',
    made.length === accounts.length ? 'generated' : made.length ? `${made.join(', ')} generated` : '',
    set.length + made.length < accounts.length
      ? `${set.length + made.length ? 'the rest ' : ''}from secrets.json`
      : '',
  ]
    .filter(Boolean)
    .join('; ');
  return [
    ['JWT_SECRET', FROM[sources.JWT_SECRET]],
    ['RELAYNODE_API_SECRET', FROM[sources.RELAYNODE_API_SECRET]],
    ['NOTIFIER_API_SECRET', FROM[sources.NOTIFIER_API_SECRET]],
    ['ADMIN_USERNAME', FROM[sources.ADMIN_USERNAME]],
    ['ADMIN_PASSWORD', FROM[sources.ADMIN_PASSWORD]],
    ['simulator login', FROM[sources.simulator_login]],
    ['dashboard sites login', FROM[sources.dashboard_sites]],
    ['broker accounts', broker],
  ].map(([k, v]) => `  ${k!.padEnd(21)} ${v}`);
}

/** The first generated admin password is the one value ever printed; otherwise where to find it. */
function passwordHint(source: string, generated: string | null | undefined, dataDir: string): string {
  if (source === 'removed')
    return '(the password of the first start; change it with POST /api/auth/password)';
  if (generated) return `${generated}  (generated; kept in ${join(dataDir, SECRETS_FILE_NAME)})`;
  return source === 'environment'
    ? '(the password you set)'
    : `(password in ${join(dataDir, SECRETS_FILE_NAME)})`;
}

const KNOWN = [ConfigError, SecretError, JoinError, TlsError, LaunchError];
/** Errors that say what to fix; anything else is a bug and shows its stack. */
export const isLaunchError = (err: unknown): boolean => KNOWN.some((k) => err instanceof k);

/** Decides the start; prints the joined site, the secrets' sources and the TLS lines as it goes. */
export async function makeLaunchPlan(
  root: string,
  argv: string[],
  processEnv: NodeJS.ProcessEnv,
  say: (text: string) => void,
): Promise<LaunchPlan> {
  const env = parseConfig(Env, processEnv);
  for (const name of PORT_VARIABLES) {
    const v = processEnv[name];
    if (v && !/^\d+$/.test(v))
      throw new LaunchError(`Invalid environment variable ${name}: expected a port number`);
  }
  const args = parseArgs(argv);
  const dataDir = resolve(env.DATA_DIR);
  if (args.join !== undefined) {
    const joined = applyJoin(dataDir, args.join);
    say(`outpost: joined site "${joined.site}" on ${joined.mqtt_url}\n`);
  }
  const { secrets, sources, createdAdminPassword } = resolveSecrets(dataDir, processEnv);
  // A host paired by --join runs its relay node against the controller's broker.
  const joined = env.MQTT_URL ? undefined : secrets.join;

  const built = availableServices(root);
  const wanted = args.names.length ? args.names : joined ? ['relay-node'] : [];
  for (const name of wanted) {
    if (!SERVICES.some((s) => s.name === name)) {
      throw new LaunchError(`unknown service "${name}"; services: ${SERVICES.map((s) => s.name).join(', ')}`);
    }
    if (!built.some((s) => s.name === name))
      throw new LaunchError(`service "${name}" is not built (${mainFile(root, name)} missing)`);
    if (joined && name !== 'relay-node') {
      throw new LaunchError(
        `${join(dataDir, SECRETS_FILE_NAME)} pairs this host with site "${joined.site}": only relay-node runs here (set MQTT_URL to run other services)`,
      );
    }
  }
  const selected = wanted.length ? built.filter((s) => wanted.includes(s.name)) : built;
  const adminUsername = secrets.ADMIN_USERNAME ?? 'admin';

  const loopback = env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;
  const tls = await setupTls({ env: processEnv, host: env.HOST, localHost: loopback, dataDir });

  say(`Secrets (${join(dataDir, SECRETS_FILE_NAME)}):\n${describeSources(sources).join('\n')}\n`);
  const metrics = metricsEnv(env.HOST, processEnv, secrets);
  if (metrics.METRICS_TOKEN)
    say(
      `/metrics needs Authorization: Bearer <token> (HOST is not loopback); the token is in ${join(dataDir, METRICS_TOKEN_FILE_NAME)}\n`,
    );
  say(tls.on ? `TLS on:\n${tls.lines.join('\n')}\n` : 'TLS off: plain HTTP and MQTT\n');

  const mqttUrl = env.MQTT_URL ?? joined?.mqtt_url;
  const loginHints: Record<string, string> = {
    controller: `  login: ${adminUsername} / ${
      createdAdminPassword && secrets.ADMIN_PASSWORD
        ? `${secrets.ADMIN_PASSWORD}  (generated; shown once: secrets.json keeps it only until the controller has made the user)`
        : passwordHint(sources.ADMIN_PASSWORD, null, dataDir)
    }`,
    dashboard: `  generator sites login: ${DASHBOARD_SITES_USER} / ${passwordHint(sources.dashboard_sites, sources.dashboard_sites === 'generated' ? (secrets.DASHBOARD_SITES_PASSWORD ?? null) : null, dataDir)}`,
    simulator: `  login: ${secrets.SIMULATOR_USERNAME ?? adminUsername} / ${passwordHint(sources.simulator_login, sources.simulator_login === 'generated' ? (secrets.SIMULATOR_PASSWORD ?? null) : null, dataDir)}`,
  };
  return {
    dataDir,
    host: env.HOST,
    loopback,
    ...(mqttUrl ? { mqttUrl } : {}),
    externalBroker: Boolean(env.MQTT_URL),
    externalCredentials: Boolean(
      env.MQTT_URL && (/\/\/[^/@]+@/.test(env.MQTT_URL) || processEnv.MQTT_USERNAME),
    ),
    ...(env.MQTT_PORT ? { mqttPort: env.MQTT_PORT } : {}),
    ...(env.MQTT_WS_PORT ? { mqttWsPort: env.MQTT_WS_PORT } : {}),
    prefix: processEnv.MQTT_TOPIC_PREFIX ? env.MQTT_TOPIC_PREFIX : (joined?.prefix ?? env.MQTT_TOPIC_PREFIX),
    ...(joined && !processEnv.RELAYNODE_ID ? { relayNodeId: joined.site } : {}),
    ...(joined ? { joinedSite: joined.site } : {}),
    timeoutMs: env.START_TIMEOUT_SECONDS * 1000,
    services: selected.map((s) => s.name),
    secrets,
    adminUsername,
    loginHints,
    tls: { on: tls.on, env: tls.env, ca: tls.ca },
    metricsEnv: metrics,
  };
}
