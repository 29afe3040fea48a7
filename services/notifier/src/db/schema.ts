import { bigint, boolean, index, integer, jsonb, pgSchema, serial, text } from 'drizzle-orm/pg-core';

/** Everything the notifier owns lives in its own schema of the shared database. */
export const notifier = pgSchema('notifier');

const ms = (name: string) => bigint(name, { mode: 'number' });

export const channels = notifier.table('channels', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  channelType: text('channel_type').notNull(),
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
});

export const groups = notifier.table('groups', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  channelIds: jsonb('channel_ids').$type<number[]>().notNull(),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
});

export const eventSettings = notifier.table('event_settings', {
  event: text('event').primaryKey(),
  enabled: boolean('enabled').notNull(),
  channelIds: jsonb('channel_ids').$type<number[]>().notNull(),
  groupIds: jsonb('group_ids').$type<number[]>().notNull(),
  titleTemplate: text('title_template').notNull(),
  bodyTemplate: text('body_template').notNull(),
  updatedAt: ms('updated_at').notNull(),
});

/** One row per delivery attempt. */
export const deliveries = notifier.table(
  'deliveries',
  {
    id: serial('id').primaryKey(),
    notificationId: text('notification_id').notNull(),
    source: text('source').notNull(),
    eventId: text('event_id'),
    channelId: integer('channel_id'),
    channelName: text('channel_name').notNull(),
    channelType: text('channel_type').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    attempt: integer('attempt').notNull(),
    status: text('status').notNull(),
    error: text('error'),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    index('deliveries_created_idx').on(t.createdAt),
    index('deliveries_notification_idx').on(t.notificationId),
  ],
);

/** Event ids already handled: QoS 1 may deliver an event twice, it is notified once. */
export const processedEvents = notifier.table(
  'processed_events',
  {
    eventId: text('event_id').primaryKey(),
    event: text('event').notNull(),
    receivedAt: ms('received_at').notNull(),
  },
  (t) => [index('processed_events_received_idx').on(t.receivedAt)],
);

/**
 * Retries still owed, so a restart resumes them instead of dropping them. Removed when the channel's
 * delivery ends (sent or failed).
 */
export const pendingRetries = notifier.table('pending_retries', {
  id: serial('id').primaryKey(),
  notificationId: text('notification_id').notNull(),
  source: text('source').notNull(),
  eventId: text('event_id'),
  channelId: integer('channel_id').notNull(),
  title: text('title').notNull(),
  body: text('body').notNull(),
  nextAttempt: integer('next_attempt').notNull(),
  dueAt: ms('due_at').notNull(),
  context: jsonb('context').$type<Record<string, unknown>>().notNull(),
});
