import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Keys whose values never reach a log line, wherever they appear in a logged object. */
export const REDACTED_KEYS = [
  'password',
  'new_password',
  'current_password',
  'secret',
  'token',
  'access_token',
  'api_key',
  'apiKey',
  'bot_token',
  'api_token',
  'user_key',
  'webhook_url',
  'authorization',
  'Authorization',
  'x-api-key',
  'X-API-Key',
  'cookie',
  'Cookie',
  'set-cookie',
  'JWT_SECRET',
  'RELAYNODE_API_SECRET',
  'NOTIFIER_API_SECRET',
  'MQTT_PASSWORD',
  'ADMIN_PASSWORD',
];

const paths = REDACTED_KEYS.flatMap((k) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`;
  const dotted = key.startsWith('[') ? key : `.${key}`;
  return [key, `*${dotted}`, `*.*${dotted}`, `req.headers${dotted}`];
});

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
  /**
   * Write each line before returning. Costs throughput on a busy gateway, but a line logged on the way
   * out (the relay node's OFF at exit, a crash) is never lost; async lines are flushed at a normal exit.
   */
  sync?: boolean;
}

export function createLogger(opts: LoggerOptions): Logger {
  return pino(
    {
      name: opts.service,
      level: opts.level ?? process.env.LOG_LEVEL?.toLowerCase().replace('warning', 'warn') ?? 'info',
      base: { service: opts.service },
      redact: { paths, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    opts.destination ?? pino.destination({ dest: 1, sync: opts.sync ?? false }),
  );
}
