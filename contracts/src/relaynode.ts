import { z } from 'zod';
import { UnixMillis, UnixSeconds, UpdatedAtFromEarlierVersions } from './common.js';
import { RebootDay } from './enums.js';

/**
 * Heartbeat lease (MQTT `relaynode/<id>/desired`, and POST /api/heartbeat). The relay node turns ON
 * only from a lease that the controller signed, that is newer (epoch, seq) than everything it applied,
 * that answers a challenge the node itself issued recently, and that asks for armed and ON; OFF and
 * disarm are obeyed from anyone who holds the relay key.
 *
 * - `epoch`: the controller's boot counter (decimal), persisted in its database and ordered: a lower
 *   epoch is never applied again. Only a signed lease moves the node's order, so nobody but the
 *   controller can take it over.
 * - `seq`: strictly increasing within an epoch.
 * - `issued_at` / `expires_at`: the controller's clock, ms. The node never compares them with its own
 *   clock: their difference is the lease's duration, counted on the node's monotonic clock from the
 *   moment the lease arrives, and capped at 3 x `heartbeat_interval`. `issued_at` also serves the
 *   clock-offset measurement (echoed back in the node's state).
 * - `challenge`: the newest challenge the controller saw in the node's state. A lease is fresh only
 *   while its challenge is one of the node's recent ones, so a lease held back or replayed later,
 *   even across a node restart, is refused.
 * - `sig`: Ed25519 signature (base64url) over `leaseSigningInput` with the node's id; the node holds
 *   only the public key (CONTROLLER_PUBLIC_KEY, carried by the join string).
 * - The failsafe deadline is local: the lease's duration after the last accepted heartbeat.
 */
export const LEASE_PROTOCOL = 2;

/**
 * The longest heartbeat interval a relay node takes. The failsafe timeout is 3 × the interval, so a
 * message (or whoever holds the relay key) cannot stretch the time a dead controller leaves the relay on
 * past 3 × this.
 */
export const MAX_HEARTBEAT_INTERVAL_SECONDS = 60;
const HeartbeatInterval = z.number().int().min(1).max(MAX_HEARTBEAT_INTERVAL_SECONDS);

/** The controller's boot counter, in decimal (a string, as the state has always carried epochs). */
export const LeaseEpoch = z
  .string()
  .max(15)
  .regex(/^[1-9][0-9]{0,14}$/, 'a decimal boot counter from 1');
/** A relay node's freshness challenge: 16 random bytes, base64url. */
export const LeaseChallenge = z
  .string()
  .length(22)
  .regex(/^[A-Za-z0-9_-]{22}$/, '16 bytes, base64url');
/** An Ed25519 signature: 64 bytes, base64url. */
export const LeaseSignature = z
  .string()
  .length(86)
  .regex(/^[A-Za-z0-9_-]{86}$/, 'an Ed25519 signature, base64url');
const Seq = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const leaseFields = {
  epoch: LeaseEpoch,
  seq: Seq,
  issued_at: UnixMillis,
  expires_at: UnixMillis,
  challenge: LeaseChallenge.nullable(),
  sig: LeaseSignature,
};

export const DesiredState = z
  .object({
    ...leaseFields,
    heartbeat_interval: HeartbeatInterval,
    armed: z.boolean(),
    relay_on: z.boolean(),
  })
  .strict();
export type DesiredState = z.infer<typeof DesiredState>;

/** The fields a lease signature covers, in this order, with the relay node's id first. */
export type SignedLease = Omit<DesiredState, 'sig'>;

/** The exact bytes the controller signs and the node verifies: no JSON canonicalisation to agree on. */
export function leaseSigningInput(nodeId: string, l: SignedLease): Uint8Array {
  return new TextEncoder().encode(
    [
      `outpost-lease/${LEASE_PROTOCOL}`,
      nodeId,
      l.epoch,
      l.seq,
      l.issued_at,
      l.expires_at,
      l.heartbeat_interval,
      l.armed ? 1 : 0,
      l.relay_on ? 1 : 0,
      l.challenge ?? '',
    ].join('\n'),
  );
}

const heartbeatBase = {
  heartbeat_interval: HeartbeatInterval,
  armed: z.boolean(),
  relay_on: z.boolean(),
};

/**
 * POST /api/heartbeat on the relay node (ARCHITECTURE.md): the interval and intent, with every lease
 * field or none. Without a signed lease the heartbeat proves neither origin, age nor order: only its
 * OFF and disarm are obeyed, and it does not renew the failsafe.
 */
const LEASE_KEYS = ['epoch', 'seq', 'issued_at', 'expires_at', 'challenge', 'sig'] as const;
export const HeartbeatRequest = z
  .object({
    ...heartbeatBase,
    epoch: leaseFields.epoch.optional(),
    seq: leaseFields.seq.optional(),
    issued_at: leaseFields.issued_at.optional(),
    expires_at: leaseFields.expires_at.optional(),
    challenge: leaseFields.challenge.optional(),
    sig: leaseFields.sig.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const given = LEASE_KEYS.filter((k) => v[k] !== undefined).length;
    if (given === 0 || given === LEASE_KEYS.length) return;
    for (const key of LEASE_KEYS) {
      if (v[key] === undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'required when any lease field is given' });
      }
    }
  })
  // The refinement, as the API description says it to a generated client: every lease field or none.
  .meta({
    anyOf: [{ required: [...LEASE_KEYS] }, { not: { anyOf: LEASE_KEYS.map((k) => ({ required: [k] })) } }],
  });
export type HeartbeatRequest = z.infer<typeof HeartbeatRequest>;

/**
 * How the node judged a heartbeat. fresh: applied as a lease. stale: not newer than what it applied.
 * expired: its challenge is not one the node issued recently (held back, replayed, or the node
 * restarted), or its duration is over. unleased: no lease fields. unsigned: the signature does not
 * verify against CONTROLLER_PUBLIC_KEY.
 */
export const LEASE_VERDICTS = ['fresh', 'stale', 'expired', 'unleased', 'unsigned'] as const;
export const LeaseVerdict = z.enum(LEASE_VERDICTS);
export type LeaseVerdict = z.infer<typeof LeaseVerdict>;

/**
 * What a sender needs of the reply to POST /api/heartbeat (the node adds its failsafe status): whether
 * the node applied it as a lease (`fresh`) or obeyed only its OFF and disarm (the others, with
 * `reason`), and the challenge the next lease must answer.
 */
export const HeartbeatAck = z.object({
  verdict: LeaseVerdict,
  reason: z.string().nullable(),
  relay_on: z.boolean(),
  armed: z.boolean(),
  challenge: LeaseChallenge.optional(),
});
export type HeartbeatAck = z.infer<typeof HeartbeatAck>;

/** The node's last refused signed lease: the controller reads why, and recovers or raises an alarm. */
export const LeaseRefusal = z.object({
  verdict: LeaseVerdict,
  reason: z.string().max(500),
  epoch: z.string().max(64).nullable(),
  seq: z.number().int().nonnegative().nullable(),
});
export type LeaseRefusal = z.infer<typeof LeaseRefusal>;

/**
 * The NTP-style echo of the newest lease the node received: the controller's `issued_at` and the
 * node's wall clock when it arrived and when this state left. The controller reads the offset between
 * the two clocks from it; nothing on the node depends on it.
 */
export const ClockEcho = z.object({
  epoch: z.string().max(64),
  seq: Seq,
  controller_ms: UnixMillis,
  received_ms: UnixMillis,
  sent_ms: UnixMillis,
});
export type ClockEcho = z.infer<typeof ClockEcho>;

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

/** A relay node's report-signing public key: a raw Ed25519 key, base64url (43 characters). */
export const NodeKey = z
  .string()
  .length(43)
  .regex(/^[A-Za-z0-9_-]{43}$/, 'an Ed25519 public key, base64url');

/**
 * Retained MQTT `relaynode/<id>/state`. Signed by the node's own key (made on the Pi at its first
 * start, pinned by the controller on first contact): `node_key` names it and `report_sig` covers every
 * other field (`reportSigningInput`). The controller acts on no report that does not verify, so the
 * node's broker account alone (it is in the join string) cannot confirm a start, fake an EPO, or move
 * the controller's epoch. `applied_lease` is the signed lease the node applied last: the evidence the
 * controller needs, with its own signature on it, before it moves its epoch past the node's.
 */
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
  /** LEASE_PROTOCOL of the node; absent on a node from before signed leases. */
  lease_protocol: z.number().int().positive().optional(),
  /** The challenge the next lease must answer. */
  challenge: LeaseChallenge.optional(),
  clock: ClockEcho.nullable().optional(),
  refusal: LeaseRefusal.nullable().optional(),
  applied_lease: DesiredState.nullable().optional(),
  node_key: NodeKey.optional(),
  report_sig: LeaseSignature.optional(),
});
export type RelaynodeState = z.infer<typeof RelaynodeState>;

/** The version of the report signature's input; a node and a controller of one release agree on it. */
export const REPORT_PROTOCOL = 1;

/** Sorted keys at every level, so the signed bytes do not depend on how a JSON encoder orders them. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = canonical(v);
    }
    return out;
  }
  return value;
}

/** The exact bytes a node signs and the controller verifies: every field but the signature. */
export function reportSigningInput(nodeId: string, state: RelaynodeState): Uint8Array {
  const { report_sig: _sig, ...rest } = state;
  return new TextEncoder().encode(
    `outpost-report/${REPORT_PROTOCOL}\n${nodeId}\n${JSON.stringify(canonical(rest))}`,
  );
}

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
