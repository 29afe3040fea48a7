import type { ChannelType, NotificationEvent } from '@outpost/contracts';
import type {
  ChannelRecord,
  DeliveryRecord,
  DeliveryStatus,
  GroupRecord,
  PendingRetry,
  SettingRecord,
} from '../domain/types.js';
import type { channels, deliveries, eventSettings, groups, pendingRetries } from './schema.js';

/** Rows (camelCase columns) to the domain's records (the API's snake_case names). */
type ChannelRow = typeof channels.$inferSelect;
type GroupRow = typeof groups.$inferSelect;
type SettingRow = typeof eventSettings.$inferSelect;
type DeliveryRow = typeof deliveries.$inferSelect;
type RetryRow = typeof pendingRetries.$inferSelect;

export const toChannel = (r: ChannelRow): ChannelRecord => ({
  id: r.id,
  name: r.name,
  channel_type: r.channelType as ChannelType,
  config: r.config,
  enabled: r.enabled,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

export const toGroup = (r: GroupRow): GroupRecord => ({
  id: r.id,
  name: r.name,
  description: r.description,
  channel_ids: r.channelIds,
  enabled: r.enabled,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

export const toSetting = (r: SettingRow): SettingRecord => ({
  event: r.event as NotificationEvent,
  enabled: r.enabled,
  channel_ids: r.channelIds,
  group_ids: r.groupIds,
  title_template: r.titleTemplate,
  body_template: r.bodyTemplate,
  updated_at: r.updatedAt,
});

export const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  notification_id: r.notificationId,
  source: r.source,
  event_id: r.eventId,
  channel_id: r.channelId,
  channel_name: r.channelName,
  channel_type: r.channelType,
  title: r.title,
  body: r.body,
  attempt: r.attempt,
  status: r.status as DeliveryStatus,
  error: r.error,
  created_at: r.createdAt,
});

export const toRetry = (r: RetryRow): PendingRetry => ({
  id: r.id,
  notification_id: r.notificationId,
  source: r.source,
  event_id: r.eventId,
  channel_id: r.channelId,
  title: r.title,
  body: r.body,
  next_attempt: r.nextAttempt,
  due_at: r.dueAt,
  context: r.context,
});
