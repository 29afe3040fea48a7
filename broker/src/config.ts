import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { envBool, parseConfig } from '@outpost/runtime/config';
import { metricsEnvShape } from '@outpost/runtime/metrics-credentials';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);

/**
 * Sessions and retained messages cross the backplane (and anyone who can write to it can inject
 * messages past the ACL): an unauthenticated Redis is accepted only on loopback.
 */
function authenticatedOrLocal(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.password !== '') return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export const BrokerEnv = z.object({
  MQTT_PORT: port.default(1883),
  MQTT_WS_PORT: port.default(9001),
  MQTT_HOST: z.string().min(1).default('0.0.0.0'),
  MQTT_TLS_PORT: port.default(8883),
  MQTT_WSS_PORT: port.default(8884),
  /**
   * A Unix socket for the services on this host (systemd: /run/outpost-broker/mqtt.sock), so their
   * passwords never cross loopback TCP, where a raw socket could read them.
   */
  MQTT_SOCKET: z
    .string()
    .regex(/^\/[^\0]{1,100}$/, 'expected an absolute path (at most 100 characters)')
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL')
    .refine(
      authenticatedOrLocal,
      'needs a password (redis://:password@host, rediss:// for TLS) unless Redis runs on this host',
    )
    .optional(),
  REDIS_PREFIX: z.string().min(1).optional(),
  MQTT_TOPIC_PREFIX: z
    .string()
    .refine((s) => !/[/#+]/.test(s) && !s.includes('\u0000'), 'must be one topic level (no "/", "+", "#")')
    .default(DEFAULT_PREFIX),
  METRICS_PORT: port.optional(),
  /** Where METRICS_PORT listens: this host only unless set (it answers with every client count). */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * METRICS_TOKEN (Bearer) and METRICS_BASIC_AUTH (user:password): with either, METRICS_PORT's /metrics
   * needs it, exactly as the services' do (the same variables and rules, @outpost/runtime).
   */
  ...metricsEnvShape,
  /** Home Assistant's discovery prefix, as the controller and the simulators are given it. */
  HA_DISCOVERY_PREFIX: z
    .string()
    .regex(/^[^#+\s]+$/)
    .default('homeassistant'),
  /**
   * Home Assistant's statestream base topic (`mqtt_statestream`'s `base_topic`): `automation` accounts
   * may publish `<base>/<domain>/<object_id>/state`. Unset: HA_DISCOVERY_PREFIX.
   */
  HA_STATESTREAM_BASE: z
    .string()
    .regex(/^[^#+\s/][^#+\s]*$/, 'topic levels without wildcards or spaces')
    .refine((s) => !s.endsWith('/'), 'no trailing "/"')
    .optional(),
  MQTT_ALLOW_ANONYMOUS: envBool(false),
  /** `automation` (Home Assistant) may also publish the running feedback; off: only `feedback` accounts. */
  MQTT_AUTOMATION_FEEDBACK: envBool(false),
  /** Largest MQTT packet a client may send (and WebSocket message); a larger one drops the client. */
  MQTT_MAX_PACKET_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  MQTT_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(64),
  /** Failed logins per address per minute before its unknown logins are refused without a check. */
  MQTT_LOGIN_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(20),
  LOG_LEVEL: z
    .string()
    .transform((v) => v.toLowerCase().replace(/^warning$/, 'warn'))
    .pipe(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']))
    .default('info'),
});
export type BrokerEnv = z.infer<typeof BrokerEnv>;

/** Parses the environment; an empty variable counts as unset. Throws one line naming the first bad variable. */
export function parseBrokerEnv(env: NodeJS.ProcessEnv): BrokerEnv {
  return parseConfig(BrokerEnv, env);
}
