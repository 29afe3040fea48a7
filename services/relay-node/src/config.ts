import {
  baseEnvShape,
  envBool,
  envPort,
  type MetricsAuth,
  metricsAuthFromEnv,
  parseConfig,
} from '@outpost/runtime';
import { PUBLIC_KEY_PATTERN } from '@outpost/runtime/lease-keys';
import { z } from 'zod';
import { GPIO_MODES, type GpioMode } from './hardware/io-factory.js';
import { BOARD_PRESETS, isGpioName, RELAY_BOARDS } from './hardware/pins.js';
import { type GensetSettings, readGensetSettings } from './genset/settings.js';
import { notifierUrlProblems } from './notifications.js';

const optBool = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']))
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v))
  .optional();

const gpioPin = z.string().refine(isGpioName, 'expected GPIOn (BCM numbering), e.g. GPIO16').optional();

const notifierUrls = z
  .string()
  .default('')
  .transform((v, ctx) => {
    const urls = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const p of notifierUrlProblems(urls)) {
      ctx.addIssue({ code: 'custom', message: `notifier URL ${p.index + 1} (${p.url}): ${p.error}` });
    }
    return urls;
  });

export const RelaynodeEnv = z.object({
  ...baseEnvShape,
  RELAYNODE_API_SECRET: z.string().min(1),
  /** The controller's lease-signing public key (from the join string); without it only OFF is obeyed. */
  CONTROLLER_PUBLIC_KEY: z
    .string()
    .trim()
    .regex(PUBLIC_KEY_PATTERN, 'expected the controller public key from the join string (43 characters)')
    .optional(),
  FAILSAFE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  MOCK_HAT_MODE: envBool(false),
  /** The mock-hardware endpoints /api/dev/* (with mock hardware only): never on by itself. */
  DEV_MODE: envBool(false),
  NOTIFIER_URLS: notifierUrls,
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: envPort(8001),
  RELAYNODE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  HARDWARE_SAFETY_ENABLED: envBool(false),
  RELAY_BOARD: z.enum(RELAY_BOARDS).default('automation-hat-mini'),
  RELAY_PIN: gpioPin,
  RELAY_ACTIVE_LOW: optBool,
  EPO_PIN: gpioPin,
  EPO_ACTIVE_LOW: optBool,
  /** The generator's running feedback (AC-sense relay, run output, oil-pressure switch); unset: none. */
  RUNNING_FEEDBACK_PIN: gpioPin,
  RUNNING_FEEDBACK_ACTIVE_LOW: optBool,
  GPIO_MODE: z.enum(GPIO_MODES).default('auto'),
  RELAYNODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'only letters, digits, "_" and "-"')
    .optional(),
});
export type RelaynodeEnv = z.infer<typeof RelaynodeEnv>;

export interface RelaynodeConfig {
  apiSecret: string;
  /** CONTROLLER_PUBLIC_KEY; undefined: no lease verifies, the relay stays OFF. */
  controllerPublicKey?: string | undefined;
  failsafeTimeoutSeconds: number;
  mockHat: boolean;
  /** DEV_MODE: development endpoints, honoured with mock hardware only. */
  devMode: boolean;
  /** METRICS_TOKEN / METRICS_BASIC_AUTH (null: /metrics is open). */
  metricsAuth: MetricsAuth | null;
  gpioMode: GpioMode;
  notifierUrls: string[];
  host: string;
  port: number;
  id: string;
  hardwareSafety: boolean;
  relayPin: string;
  relayActiveLow: boolean;
  epoPin: string;
  epoActiveLow: boolean;
  /** RUNNING_FEEDBACK_PIN; undefined: the node reports no running feedback. */
  feedbackPin?: string | undefined;
  /** A contact to ground with the pull-up (the default) reads LOW while the generator runs. */
  feedbackActiveLow?: boolean;
  /** GENSET_*: the generator's own controller over Modbus; null or absent: not read. */
  genset?: GensetSettings | null;
  dataDir: string;
  logLevel: string;
  /** OUTBOUND_ALLOWED_NETWORKS: private and loopback ranges notifier URLs may reach. */
  outboundAllowedNetworks?: string | undefined;
  mqtt: {
    url: string | undefined;
    username: string | undefined;
    password: string | undefined;
    prefix: string;
  };
}

export const MISSING_SECRET =
  'RELAYNODE_API_SECRET is required: the relay node refuses to start without the shared API secret (no opt-out)';

/** Reads the environment; throws ConfigError naming the first bad variable. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): RelaynodeConfig {
  const e = parseConfig(RelaynodeEnv, env);
  const preset = BOARD_PRESETS[e.RELAY_BOARD];
  return {
    apiSecret: e.RELAYNODE_API_SECRET,
    controllerPublicKey: e.CONTROLLER_PUBLIC_KEY,
    failsafeTimeoutSeconds: e.FAILSAFE_TIMEOUT_SECONDS,
    mockHat: e.MOCK_HAT_MODE || e.GPIO_MODE === 'mock',
    devMode: e.DEV_MODE,
    metricsAuth: metricsAuthFromEnv(e),
    gpioMode: e.GPIO_MODE,
    notifierUrls: e.NOTIFIER_URLS,
    host: e.HOST,
    // The service-specific variable wins over the generic one (the launcher sets RELAYNODE_PORT).
    port: e.RELAYNODE_PORT ?? e.PORT,
    id: e.RELAYNODE_ID ?? e.SERVICE_ID,
    hardwareSafety: e.HARDWARE_SAFETY_ENABLED,
    relayPin: e.RELAY_PIN ?? preset.relayPin,
    relayActiveLow: e.RELAY_ACTIVE_LOW ?? preset.relayActiveLow,
    epoPin: e.EPO_PIN ?? preset.epoPin,
    epoActiveLow: e.EPO_ACTIVE_LOW ?? preset.epoActiveLow,
    feedbackPin: e.RUNNING_FEEDBACK_PIN,
    feedbackActiveLow: e.RUNNING_FEEDBACK_ACTIVE_LOW ?? true,
    genset: readGensetSettings(env),
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    outboundAllowedNetworks: e.OUTBOUND_ALLOWED_NETWORKS,
    mqtt: {
      url: e.MQTT_URL,
      username: e.MQTT_USERNAME,
      password: e.MQTT_PASSWORD,
      prefix: e.MQTT_TOPIC_PREFIX,
    },
  };
}
