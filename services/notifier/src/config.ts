import { baseEnvShape, envPort, parseConfig, requiredDatabaseUrl } from '@outpost/runtime';
import { z } from 'zod';

const optionalUrl = z.url({ protocol: /^https?$/ }).optional();

export const notifierEnv = z.object({
  ...baseEnvShape,
  DATABASE_URL: requiredDatabaseUrl,
  NOTIFIER_PORT: envPort(8002),
  HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * Shared with the controller alone (not JWT_SECRET): it signs each forwarded request with it. Required,
   * so the API is never open.
   */
  NOTIFIER_API_SECRET: z.string().min(32, 'must be at least 32 characters').max(512),
  NOTIFIER_SEND_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  /** Waits between attempts, comma-separated seconds; one more attempt than entries. */
  NOTIFIER_RETRY_DELAYS_SECONDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'expected comma-separated seconds, e.g. 5,30,120')
    .default('5,30,120'),
  NOTIFIER_TELEGRAM_BASE_URL: optionalUrl,
  NOTIFIER_DISCORD_BASE_URL: optionalUrl,
  NOTIFIER_SLACK_BASE_URL: optionalUrl,
  NOTIFIER_PUSHOVER_BASE_URL: optionalUrl,
  NOTIFIER_NTFY_BASE_URL: optionalUrl,
});
export type NotifierConfig = z.infer<typeof notifierEnv>;

export function parseNotifierConfig(env: NodeJS.ProcessEnv = process.env): NotifierConfig {
  return parseConfig(notifierEnv, env);
}

export const retryDelaysMs = (c: NotifierConfig) =>
  c.NOTIFIER_RETRY_DELAYS_SECONDS.split(',').map((s) => Number(s) * 1000);
