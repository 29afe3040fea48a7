import { z } from 'zod';
import { RowId } from './common.js';
import { NotificationEvent } from './enums.js';
import { NotifierUrl } from './relaynode.js';

/**
 * The controller's calls to the notifier carry a short HS256 token signed with NOTIFIER_API_SECRET, a
 * key only these two hold. Issuer and audience keep any other token of the site (a user's bearer
 * token, signed with JWT_SECRET) from being taken for one of these even if the keys were ever equal.
 */
export const SERVICE_TOKEN = {
  issuer: 'outpost-controller',
  audience: 'outpost-notifier',
  /** Lifetime the controller gives a token: long enough for one forwarded request. */
  lifetimeSeconds: 60,
} as const;

const HttpUrl = z.url({ protocol: /^https?$/ }).max(2000);
const Name = z.string().min(1).max(100);

/** Channel config per channel_type, field names exactly as the spec's table. */
export const ChannelConfigs = {
  telegram: z.object({ bot_token: z.string().min(1).max(200), chat_id: z.string().min(1).max(100) }).strict(),
  slack: z.object({ webhook_url: HttpUrl }).strict(),
  discord: z.object({ webhook_url: HttpUrl }).strict(),
  email: z
    .object({
      smtp_host: z.string().min(1).max(255),
      smtp_port: z.number().int().min(1).max(65535),
      username: z.string().max(200).default(''),
      password: z.string().max(200).default(''),
      from_email: z.email().max(254),
      to_emails: z.array(z.email().max(254)).min(1).max(50),
      /**
       * On ports other than 465 (implicit TLS), refuse to send (and to log in) unless the server upgrades
       * with STARTTLS. false only for a server that cannot, on a network you trust.
       */
      require_tls: z.boolean().default(true),
    })
    .strict(),
  pushover: z
    .object({ user_key: z.string().min(1).max(100), api_token: z.string().min(1).max(100) })
    .strict(),
  apprise: z.object({ urls: z.array(NotifierUrl).min(1).max(20) }).strict(),
  webhook: z
    .object({
      url: HttpUrl,
      headers: z.record(z.string().max(100), z.string().max(1000)).default({}),
      method: z.enum(['POST', 'PUT', 'PATCH']).default('POST'),
    })
    .strict(),
} as const;

/** Fields of each channel type that are write-only (masked on read, never logged). */
export const SECRET_CONFIG_FIELDS: Record<keyof typeof ChannelConfigs, readonly string[]> = {
  telegram: ['bot_token'],
  slack: ['webhook_url'],
  discord: ['webhook_url'],
  email: ['password'],
  pushover: ['user_key', 'api_token'],
  apprise: ['urls'],
  webhook: ['headers'],
};

/**
 * Where a channel's secrets go. An update that changes one of these keeps no stored secret: a masked or
 * missing one is dropped, so a stored password or header is never sent to a host the user just typed.
 */
export const DESTINATION_CONFIG_FIELDS: Partial<Record<keyof typeof ChannelConfigs, readonly string[]>> = {
  email: ['smtp_host', 'smtp_port'],
  webhook: ['url'],
};

const channelObject = <T extends string, C extends z.ZodType>(type: T, config: C) =>
  z
    .object({ name: Name, channel_type: z.literal(type), config, enabled: z.boolean().default(true) })
    .strict();

/**
 * PUT /api/notifications/channels/{channel_id}: like ChannelInput, but a secret field may be left out
 * (or sent back in its masked form) to keep the stored value; secrets are write-only.
 */
export const ChannelUpdate = z.discriminatedUnion('channel_type', [
  channelObject(
    'telegram',
    ChannelConfigs.telegram.extend({ bot_token: z.string().min(1).max(200).optional() }),
  ),
  channelObject('slack', ChannelConfigs.slack.extend({ webhook_url: HttpUrl.optional() })),
  channelObject('discord', ChannelConfigs.discord.extend({ webhook_url: HttpUrl.optional() })),
  channelObject('email', ChannelConfigs.email.extend({ password: z.string().max(200).optional() })),
  channelObject(
    'pushover',
    ChannelConfigs.pushover.extend({
      user_key: z.string().min(1).max(100).optional(),
      api_token: z.string().min(1).max(100).optional(),
    }),
  ),
  channelObject(
    'apprise',
    ChannelConfigs.apprise.extend({ urls: z.array(NotifierUrl).min(1).max(20).optional() }),
  ),
  channelObject(
    'webhook',
    ChannelConfigs.webhook.extend({
      headers: z.record(z.string().max(100), z.string().max(1000)).optional(),
    }),
  ),
]);
export type ChannelUpdate = z.infer<typeof ChannelUpdate>;

export const ChannelInput = z.discriminatedUnion('channel_type', [
  z
    .object({
      name: Name,
      channel_type: z.literal('telegram'),
      config: ChannelConfigs.telegram,
      enabled: z.boolean().default(true),
    })
    .strict(),
  z
    .object({
      name: Name,
      channel_type: z.literal('slack'),
      config: ChannelConfigs.slack,
      enabled: z.boolean().default(true),
    })
    .strict(),
  z
    .object({
      name: Name,
      channel_type: z.literal('discord'),
      config: ChannelConfigs.discord,
      enabled: z.boolean().default(true),
    })
    .strict(),
  z
    .object({
      name: Name,
      channel_type: z.literal('email'),
      config: ChannelConfigs.email,
      enabled: z.boolean().default(true),
    })
    .strict(),
  z
    .object({
      name: Name,
      channel_type: z.literal('pushover'),
      config: ChannelConfigs.pushover,
      enabled: z.boolean().default(true),
    })
    .strict(),
  z
    .object({
      name: Name,
      channel_type: z.literal('apprise'),
      config: ChannelConfigs.apprise,
      enabled: z.boolean().default(true),
    })
    .strict(),
  z
    .object({
      name: Name,
      channel_type: z.literal('webhook'),
      config: ChannelConfigs.webhook,
      enabled: z.boolean().default(true),
    })
    .strict(),
]);
export type ChannelInput = z.infer<typeof ChannelInput>;

export const GroupInput = z
  .object({
    name: Name,
    description: z.string().max(500).default(''),
    channel_ids: z.array(RowId).max(100),
    enabled: z.boolean().default(true),
  })
  .strict();
export type GroupInput = z.infer<typeof GroupInput>;

export const SystemNotificationSetting = z
  .object({
    enabled: z.boolean(),
    channel_ids: z.array(RowId).max(100),
    group_ids: z.array(RowId).max(100),
    title_template: z.string().max(200),
    body_template: z.string().max(4000),
  })
  .strict();
export type SystemNotificationSetting = z.infer<typeof SystemNotificationSetting>;

export const SendNotificationRequest = z
  .object({
    title: z.string().min(1).max(200),
    body: z.string().min(1).max(4000),
    channel_ids: z.array(RowId).min(1).max(100),
  })
  .strict();
export type SendNotificationRequest = z.infer<typeof SendNotificationRequest>;

export const NotificationHistoryQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(1000).default(50) })
  .strict();

const IsoTime = z.string();

/** A channel as read back: secret config fields masked (`****` plus at most the last 4 characters). */
export const Channel = z.object({
  id: z.number().int(),
  name: z.string(),
  channel_type: z.string(),
  config: z.record(z.string(), z.unknown()),
  enabled: z.boolean(),
  created_at: IsoTime,
  updated_at: IsoTime,
});
export type Channel = z.infer<typeof Channel>;

/** POST /api/notifications/channels: the first channel becomes the channel of every unconfigured event. */
export const ChannelCreated = Channel.extend({
  default_for_events: z.array(NotificationEvent),
});
export type ChannelCreated = z.infer<typeof ChannelCreated>;

export const Group = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  channel_ids: z.array(z.number().int()),
  enabled: z.boolean(),
  created_at: IsoTime,
  updated_at: IsoTime,
});
export type Group = z.infer<typeof Group>;

/** One event's setting; `configured` is false while the defaults apply. */
export const SystemNotificationSettingOut = SystemNotificationSetting.extend({
  event: z.string(),
  configured: z.boolean(),
});
export type SystemNotificationSettingOut = z.infer<typeof SystemNotificationSettingOut>;

export const DELIVERY_STATUSES = ['sent', 'retrying', 'failed'] as const;
export const DeliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/**
 * One delivery attempt. `status` is `sent`, `retrying` (this attempt failed, another follows) or
 * `failed` (final). `source` is the event name, `manual` (POST /send) or `test`.
 */
export const NotificationHistoryRecord = z.object({
  id: z.number().int(),
  notification_id: z.string(),
  source: z.string(),
  event_id: z.string().nullable(),
  channel_id: z.number().int().nullable(),
  channel_name: z.string(),
  channel_type: z.string(),
  title: z.string(),
  body: z.string(),
  attempt: z.number().int().positive(),
  status: DeliveryStatus,
  error: z.string().nullable(),
  created_at: IsoTime,
});
export type NotificationHistoryRecord = z.infer<typeof NotificationHistoryRecord>;

export const DeliveryOutcome = z.object({
  channel_id: z.number().int(),
  status: DeliveryStatus,
  error: z.string().nullable(),
});
export type DeliveryOutcome = z.infer<typeof DeliveryOutcome>;

/** Reply of POST /send and POST /channels/{id}/test: each channel's first attempt (retries continue). */
export const SendNotificationResponse = z.object({
  notification_id: z.string(),
  results: z.array(DeliveryOutcome),
});
export type SendNotificationResponse = z.infer<typeof SendNotificationResponse>;
