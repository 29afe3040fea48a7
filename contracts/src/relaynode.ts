import { z } from 'zod';
import { UnixMillis, UnixSeconds, UpdatedAtFromEarlierVersions } from './common.js';
import { RebootDay } from './enums.js';

/**
 * Heartbeat lease (MQTT `relaynode/<id>/desired`). The relay node turns ON only from a message that is
 * unexpired, newer (epoch, seq) and armed; OFF is always obeyed.
 *
 * - `epoch`: opaque id of one controller process lifetime (e.g. a random id chosen at boot). A message
 *   whose epoch the node has not seen before counts as newer; an epoch that was superseded never again.
 * - `seq`: strictly increasing within an epoch.
 * - `issued_at` / `expires_at`: controller clock, ms. The node refuses ON once its clock passes
 *   `expires_at`; it caps `expires_at` at `issued_at + 3 × heartbeat_interval`.
 * - The failsafe deadline is local: 3 × `heartbeat_interval` after the last accepted heartbeat.
 */

/**
 * The longest heartbeat interval a relay node takes. The failsafe timeout is 3 × the interval, so a
 * message (or whoever holds the relay key) cannot stretch the time a dead controller leaves the relay on
 * past 3 × this.
 */
export const MAX_HEARTBEAT_INTERVAL_SECONDS = 60;
const HeartbeatInterval = z.number().int().min(1).max(MAX_HEARTBEAT_INTERVAL_SECONDS);

export const DesiredState = z
  .object({
    epoch: z.string().min(1).max(64),
    seq: z.number().int().nonnegative(),
    issued_at: UnixMillis,
    expires_at: UnixMillis,
    heartbeat_interval: HeartbeatInterval,
    armed: z.boolean(),
    relay_on: z.boolean(),
  })
  .strict();
export type DesiredState = z.infer<typeof DesiredState>;

/**
 * POST /api/heartbeat on the relay node (ARCHITECTURE.md); lease fields optional over REST, but all four
 * or none. Without them the heartbeat proves neither age nor order: only its OFF and disarm are obeyed,
 * and it does not renew the failsafe.
 */
export const HeartbeatRequest = z
  .object({
    heartbeat_interval: HeartbeatInterval,
    armed: z.boolean(),
    relay_on: z.boolean(),
    epoch: DesiredState.shape.epoch.optional(),
    seq: DesiredState.shape.seq.optional(),
    issued_at: UnixMillis.optional(),
    expires_at: UnixMillis.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const given = [v.epoch, v.seq, v.issued_at, v.expires_at].filter((x) => x !== undefined).length;
    if (given !== 0 && given !== 4) {
      for (const key of ['epoch', 'seq', 'issued_at', 'expires_at'] as const) {
        if (v[key] === undefined) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'required when any lease field is given' });
        }
      }
    }
  });
export type HeartbeatRequest = z.infer<typeof HeartbeatRequest>;

/**
 * What a sender needs of the reply to POST /api/heartbeat (the node adds its failsafe status): whether
 * the node applied it as a lease (`fresh`) or obeyed only its OFF and disarm (the others, with `reason`).
 */
export const HeartbeatAck = z.object({
  verdict: z.enum(['fresh', 'stale', 'expired', 'unleased']),
  reason: z.string().nullable(),
  relay_on: z.boolean(),
  armed: z.boolean(),
});
export type HeartbeatAck = z.infer<typeof HeartbeatAck>;

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
  updated_at: UpdatedAtFromEarlierVersions,
  /** The generator's running feedback on the node's input (RUNNING_FEEDBACK_PIN); absent without one. */
  running_feedback: z.boolean().optional(),
});
export type RelaynodeState = z.infer<typeof RelaynodeState>;

export const RelayStateResponse = z.object({
  relay_on: z.boolean(),
  armed: z.boolean(),
  failsafe_triggered: z.boolean(),
  physical_safety_engaged: z.boolean(),
});
export type RelayStateResponse = z.infer<typeof RelayStateResponse>;

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
export type WifiAddRequest = z.infer<typeof WifiAddRequest>;
export type WifiConnectRequest = z.infer<typeof WifiConnectRequest>;

/** POST /api/system/reboot and /api/system/shutdown: an explicit confirmation, refused while the relay is ON. */
export const PowerRequest = z.object({ confirm: z.literal(true) }).strict();

/** GET /api/system/wifi/scan — one entry per visible network (strongest access point per SSID). */
export const WifiNetwork = z.object({
  ssid: z.string(),
  bssid: z.string(),
  strength: z.number().int().min(0).max(100),
  frequency_mhz: z.number().int().nonnegative(),
  secured: z.boolean(),
  saved: z.boolean(),
});
export type WifiNetwork = z.infer<typeof WifiNetwork>;

/** Notification settings as the relay node reports them (GET /api/relaynode/notifications). */
export const RelaynodeNotificationsStatus = z.object({
  notifier_urls: z.array(z.string()),
  source: z.enum(['settings', 'environment']),
  failsafe_cooldown_minutes: z.number().int().nonnegative(),
  restored_cooldown_minutes: z.number().int().nonnegative(),
});
export type RelaynodeNotificationsStatus = z.infer<typeof RelaynodeNotificationsStatus>;

/** WiFi and power administration verbs; their schemas are in relaynode-system.ts. */
export const RELAYNODE_SYSTEM_VERBS = [
  'wifi-scan',
  'wifi-list',
  'wifi-add',
  'wifi-connect',
  'wifi-forget',
  'reboot',
  'shutdown',
] as const;
export type RelaynodeSystemVerb = (typeof RELAYNODE_SYSTEM_VERBS)[number];

/**
 * Verbs the relay node answers on `relaynode/<id>/request/<verb>` (reply on `.../response/<verb>`),
 * so the controller can proxy administration without a direct route. `data` is the REST body.
 */
export const RELAYNODE_REQUEST_VERBS = [
  'status',
  'reboot-schedule',
  'get-reboot-schedule',
  'notifications',
  'get-notifications',
  'notifications-settings',
  'notifications-test',
  'system',
  'dev-epo',
  ...RELAYNODE_SYSTEM_VERBS,
] as const;
export const RelaynodeRequestVerb = z.enum(RELAYNODE_REQUEST_VERBS);
export type RelaynodeRequestVerb = z.infer<typeof RelaynodeRequestVerb>;
