import { z } from 'zod';
import { UnixMillis, UnixSeconds } from './common.js';
import { RebootDay } from './enums.js';

/**
 * Heartbeat lease (MQTT `relaynode/<id>/desired`). The relay node turns ON only from a message that is
 * unexpired, newer (epoch, seq) and armed; OFF is always obeyed.
 */
export const DesiredState = z
  .object({
    epoch: z.string().min(1).max(64),
    seq: z.number().int().nonnegative(),
    issued_at: UnixMillis,
    expires_at: UnixMillis,
    heartbeat_interval: z.number().int().min(1).max(3600),
    armed: z.boolean(),
    relay_on: z.boolean(),
  })
  .strict();
export type DesiredState = z.infer<typeof DesiredState>;

/** POST /api/heartbeat on the relay node (ARCHITECTURE.md); lease fields optional over REST. */
export const HeartbeatRequest = z
  .object({
    heartbeat_interval: z.number().int().min(1).max(3600),
    armed: z.boolean(),
    relay_on: z.boolean(),
    epoch: DesiredState.shape.epoch.optional(),
    seq: DesiredState.shape.seq.optional(),
    issued_at: UnixMillis.optional(),
    expires_at: UnixMillis.optional(),
  })
  .strict();
export type HeartbeatRequest = z.infer<typeof HeartbeatRequest>;

/** GET /api/failsafe — the spec's failsafe status object. */
export const FailsafeStatus = z.object({
  running: z.boolean(),
  last_heartbeat: UnixSeconds.nullable(),
  seconds_since_heartbeat: z.number().int().nonnegative().nullable(),
  heartbeat_count: z.number().int().nonnegative(),
  failsafe_triggered: z.boolean(),
  timeout_seconds: z.number().int().positive(),
  heartbeat_interval: z.number().int().positive().nullable(),
  timeout_source: z.string(),
});
export type FailsafeStatus = z.infer<typeof FailsafeStatus>;

/** Retained MQTT `relaynode/<id>/state`. */
export const RelaynodeState = z.object({
  relay_on: z.boolean(),
  armed: z.boolean(),
  failsafe_triggered: z.boolean(),
  physical_safety_engaged: z.boolean(),
  applied_seq: z.number().int().nonnegative().nullable(),
  epoch: z.string().max(64).nullable(),
  last_heartbeat: UnixSeconds.nullable(),
  timeout_seconds: z.number().int().positive(),
  updated_at: UnixMillis,
});
export type RelaynodeState = z.infer<typeof RelaynodeState>;

export const RelayStateResponse = z.object({
  relay_on: z.boolean(),
  armed: z.boolean(),
  failsafe_triggered: z.boolean(),
  physical_safety_engaged: z.boolean(),
});

export const RebootSchedule = z
  .object({
    enabled: z.boolean(),
    day: RebootDay,
    hour: z.number().int().min(0).max(23),
    minute: z.number().int().min(0).max(59),
  })
  .strict();
export type RebootSchedule = z.infer<typeof RebootSchedule>;

/** Apprise-style notifier URL (json://, tgram://, mailto://, …). */
export const NotifierUrl = z
  .string()
  .min(3)
  .max(2000)
  .regex(/^[a-z][a-z0-9+.-]*:\/\//, 'expected a notifier URL such as json://host/path');

export const RelaynodeNotificationsRequest = z
  .object({ notifier_urls: z.array(NotifierUrl).max(20) })
  .strict();

export const RelaynodeNotificationSettings = z
  .object({
    failsafe_cooldown_minutes: z.number().int().min(0).max(10080),
    restored_cooldown_minutes: z.number().int().min(0).max(10080),
  })
  .strict();
export type RelaynodeNotificationSettings = z.infer<typeof RelaynodeNotificationSettings>;

export const WifiAddRequest = z
  .object({
    ssid: z.string().min(1).max(32),
    password: z.string().max(63),
    auto_connect: z.boolean().default(true),
  })
  .strict();
export const WifiConnectRequest = z
  .object({ ssid: z.string().min(1).max(32), password: z.string().max(63) })
  .strict();

export const DevEpoRequest = z.object({ engaged: z.boolean() }).strict();
