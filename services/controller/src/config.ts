import { generator, relaynode } from '@outpost/contracts';
import { baseEnvShape, envBool, requiredDatabaseUrl } from '@outpost/runtime';
import { z } from 'zod';
import { leasePrivateKey } from '@outpost/runtime/lease-keys';

function isLeasePrivateKey(text: string): boolean {
  try {
    leasePrivateKey(text);
    return true;
  } catch {
    return false;
  }
}

const pin = z.coerce.number().int().min(0).max(64).optional();

/** The controller's environment (spec variables, ARCHITECTURE.md "Running"). */
export const ControllerEnv = z.object({
  ...baseEnvShape,
  DATABASE_URL: requiredDatabaseUrl,
  CONTROLLER_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).optional(),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** The console's address for Home Assistant's device link; derived from HOST and the LAN address. */
  CONSOLE_URL: z.url({ protocol: /^https?$/ }).optional(),
  JWT_SECRET: z.string().min(16, 'must be at least 16 characters'),
  /**
   * The relay lease signing key (Ed25519, PKCS#8 DER, base64url; `npm start` generates it). Relay nodes
   * hold its public half (CONTROLLER_PUBLIC_KEY, in the join string) and start nothing without it.
   */
  LEASE_SIGNING_KEY: z
    .string()
    .trim()
    .refine(isLeasePrivateKey, 'expected an Ed25519 private key (PKCS#8 DER, base64url)')
    .optional(),
  TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86400)
    .default(43200),
  ADMIN_USERNAME: z.string().min(1).max(100).default('admin'),
  ADMIN_PASSWORD: z.string().min(10, 'must be at least 10 characters').max(200).optional(),
  /** The relay node refuses a longer interval (contracts: MAX_HEARTBEAT_INTERVAL_SECONDS). */
  HEARTBEAT_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(relaynode.MAX_HEARTBEAT_INTERVAL_SECONDS)
    .default(10),
  ALLOWED_IPS: z.string().optional(),
  TRUSTED_PROXIES: z.string().optional(),
  GPIO_MODE: z.enum(['auto', 'mock', 'gpiochip', 'raspi']).default('auto'),
  TZ: z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'unknown time zone')
    .default('UTC'),
  BMS_GPIO_PIN: pin,
  HOA_GPIO_QUIET: pin,
  HOA_GPIO_RUN: pin,
  HOA_BOOT_DELAY_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  /** Generator health: the running-feedback line, its debounce, the start's confirm window. */
  RUNNING_FEEDBACK_GPIO_PIN: pin,
  RUNNING_FEEDBACK_DEBOUNCE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  START_CONFIRM_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
  HOUR_METER_WRITE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  DISARMED_REMINDER_HOURS: z.coerce.number().min(0).max(8760).default(24),
  HOA_SWITCH_ENABLED: envBool(false),
  /** The mock-hardware endpoints /api/dev/* (with GPIO_MODE=mock only): never on by itself. */
  DEV_MODE: envBool(false),
  BOOT_ARMING_POLICY: z.enum(['fail_safe', 'preserve_state']).optional(),
  RELAYNODE_URL: z.url({ protocol: /^https?$/ }).optional(),
  RELAYNODE_API_SECRET: z.string().min(1).optional(),
  RELAYNODE_REQUEST_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(120).default(5),
  NOTIFIER_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Signs the calls forwarded to the notifier; the notifier's value. Not JWT_SECRET: users' tokens are not its. */
  NOTIFIER_API_SECRET: z.string().min(32, 'must be at least 32 characters').max(512).optional(),
  RELAYNODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default('main'),
  /** What the automation accounts (Home Assistant) may send on controller/<id>/set, comma-separated. */
  AUTOMATION_COMMANDS: z
    .string()
    .default(generator.DEFAULT_AUTOMATION_COMMANDS.join(','))
    .transform((s) =>
      s
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    )
    .pipe(z.array(generator.AutomationCommand))
    .transform((list) => new Set(list)),
  HA_DISCOVERY_ENABLED: envBool(true),
  HA_DISCOVERY_PREFIX: z
    .string()
    .regex(/^[^#+\s]+$/)
    .default('homeassistant'),
});
export type ControllerEnv = z.infer<typeof ControllerEnv>;

/** RELAYNODE_URL needs the shared secret: the relay node refuses every call without X-API-Key. */
export function checkRelaynodeRest(env: ControllerEnv): string | null {
  if (env.RELAYNODE_URL && !env.RELAYNODE_API_SECRET)
    return 'Invalid environment variable RELAYNODE_API_SECRET: required when RELAYNODE_URL is set';
  return null;
}

/** NOTIFIER_URL needs the notifier's key: the notifier refuses every call not signed with it. */
export function checkNotifier(env: ControllerEnv): string | null {
  if (env.NOTIFIER_URL && !env.NOTIFIER_API_SECRET)
    return 'Invalid environment variable NOTIFIER_API_SECRET: required when NOTIFIER_URL is set';
  return null;
}

export const listenPort = (env: ControllerEnv): number => env.CONTROLLER_PORT ?? env.PORT ?? 8000;
