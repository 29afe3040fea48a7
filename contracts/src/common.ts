import { z } from 'zod';

/** Every gateway's error body (ARCHITECTURE.md: errors are JSON {"detail": "<message>"}). */
export const ErrorBody = z.object({ detail: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const HealthBody = z
  .object({
    status: z.enum(['healthy', 'degraded']),
    service: z.string(),
    version: z.string(),
    uptime_seconds: z.number().int().nonnegative(),
    broker: z.enum(['connected', 'disconnected', 'not_used']).optional(),
    database: z.enum(['connected', 'disconnected', 'not_used']).optional(),
  })
  .loose();
export type HealthBody = z.infer<typeof HealthBody>;

/** Availability payloads: Home Assistant's default payload_available/payload_not_available. */
export const Availability = z.enum(['online', 'offline']);
export type Availability = z.infer<typeof Availability>;

/** A database row id: PostgreSQL's serial is a 32-bit integer, so a larger id names no row. */
export const RowId = z.number().int().positive().max(2147483647);

/** Identifiers used as a topic level: no wildcards, separators or control characters. */
export const TopicId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'only letters, digits, "_" and "-"');

/** Unix time in seconds. */
export const UnixSeconds = z.number().int().nonnegative().max(32503680000);
/** Unix time in milliseconds. */
export const UnixMillis = z.number().int().nonnegative().max(32503680000000);

/**
 * `updated_at` in every MQTT payload: Unix time in whole seconds, the unit of the specs' other
 * timestamps (start_time, last_heartbeat). A millisecond value is refused, so a publisher in the
 * wrong unit fails its own publish. Millisecond fields are others: `timestamp_ms`, a lease's
 * `issued_at`/`expires_at`.
 */
export const UpdatedAt = UnixSeconds;

/**
 * `updated_at` as read from a peer that may run an earlier version, which sent milliseconds: during a
 * two-host upgrade a controller upgraded first must still read the relay node's state (EPO, relay)
 * until the node is upgraded too. A millisecond value (always over 10^12 today) is read as seconds;
 * every publisher of this version sends seconds, and what is passed on is seconds.
 */
export const UpdatedAtFromEarlierVersions = z.union([
  UpdatedAt,
  UnixMillis.min(1e12).transform((ms) => Math.floor(ms / 1000)),
]);

export const boundedString = (max: number) => z.string().max(max);

/** Request/response over MQTT: `<svc>/<id>/request/<verb>` → `.../response/<verb>`. */
export const RequestEnvelope = z.object({
  transaction: z.string().min(1).max(64),
  data: z.unknown().optional(),
  reply_to: z.string().max(256).optional(),
});
export type RequestEnvelope = z.infer<typeof RequestEnvelope>;

export const ResponseEnvelope = z.object({
  transaction: z.string().min(1).max(64),
  status: z.enum(['ok', 'error']),
  data: z.unknown().optional(),
  error: z.string().max(1000).optional(),
  /** With an error: the HTTP status the answering service gives it (409 conflict, 422 invalid, …). */
  code: z.number().int().min(400).max(599).optional(),
});
export type ResponseEnvelope = z.infer<typeof ResponseEnvelope>;
