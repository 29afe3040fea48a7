import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { z } from 'zod';
import { metricsEnvShape } from './metrics-auth.js';
import { outboundPolicy } from './outbound.js';

/** Variables every service reads (ARCHITECTURE.md, "Running"). */
export const baseEnvShape = {
  MQTT_URL: z
    .string()
    // mqtt+unix:///path: the broker's Unix socket on this host (MQTT_SOCKET), off every network interface.
    .regex(
      /^((mqtts?|wss?|tcp):\/\/.+|mqtt\+unix:\/\/\/.+)$/,
      'expected mqtt://host:port (or mqtt+unix:///path)',
    )
    .optional(),
  MQTT_USERNAME: z.string().min(1).optional(),
  MQTT_PASSWORD: z.string().min(1).optional(),
  MQTT_TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'expected topic levels without wildcards')
    .default(DEFAULT_PREFIX),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['fatal', 'error', 'warn', 'warning', 'info', 'debug', 'trace', 'silent']))
    .transform((v) => (v === 'warning' ? 'warn' : v))
    .default('info'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected postgres://…')
    .optional(),
  SERVICE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'only letters, digits, "_" and "-"')
    .default('main'),
  /** Loopback, private and link-local ranges user-configured targets may reach (outbound.ts). */
  OUTBOUND_ALLOWED_NETWORKS: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      try {
        outboundPolicy(v);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: (err as Error).message.replace(/^OUTBOUND_ALLOWED_NETWORKS: /, ''),
        });
      }
    }),
  ...metricsEnvShape,
} as const;

/**
 * DATABASE_URL for a service that keeps data: there is no database without it. `npm start` passes
 * one (its embedded PostgreSQL), so only a service run on its own meets this.
 */
export const requiredDatabaseUrl = baseEnvShape.DATABASE_URL.refine(
  (v) => v !== undefined,
  'required (npm start runs an embedded PostgreSQL; or set postgres://…)',
).transform((v) => v as string);

/** A boolean environment variable: true/false/1/0/yes/no/on/off, case-insensitive. */
export const envBool = (defaultValue: boolean) =>
  z
    .string()
    .transform((v) => v.trim().toLowerCase())
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off', '']))
    .transform((v) => (v === '' ? defaultValue : ['true', '1', 'yes', 'on'].includes(v)))
    .default(defaultValue);

/** A TCP/UDP port number from the environment. */
export const envPort = (defaultValue: number) =>
  z.coerce.number().int().min(0).max(65535).default(defaultValue);

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid environment variable ${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment against a schema. An empty string counts as unset so that `FOO=` in a unit
 * file falls back to the default. Throws ConfigError naming the first bad variable.
 */
export function parseConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const input: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const variable = String(issue.path[0] ?? 'environment');
  const detail =
    issue.code === 'invalid_type' && input[variable] === undefined ? 'required but not set' : issue.message;
  throw new ConfigError(variable, detail);
}

/** parseConfig for a process entry point: a bad variable prints one line naming it and exits 1. */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  try {
    return parseConfig(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
