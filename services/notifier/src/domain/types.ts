import type { ChannelType, NotificationEvent } from '@outpost/contracts';

export interface ChannelRecord {
  id: number;
  name: string;
  channel_type: ChannelType;
  config: Record<string, unknown>;
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

export interface GroupRecord {
  id: number;
  name: string;
  description: string;
  channel_ids: number[];
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

export interface SettingRecord {
  event: NotificationEvent;
  enabled: boolean;
  channel_ids: number[];
  group_ids: number[];
  title_template: string;
  body_template: string;
  updated_at: number;
}

export type DeliveryStatus = 'sent' | 'retrying' | 'failed';

export interface DeliveryRecord {
  id: number;
  notification_id: string;
  source: string;
  event_id: string | null;
  channel_id: number | null;
  channel_name: string;
  channel_type: string;
  title: string;
  body: string;
  attempt: number;
  status: DeliveryStatus;
  error: string | null;
  created_at: number;
}

export interface PendingRetry {
  id: number;
  notification_id: string;
  source: string;
  event_id: string | null;
  channel_id: number;
  title: string;
  body: string;
  next_attempt: number;
  due_at: number;
  context: Record<string, unknown>;
}

export type NewChannel = Omit<ChannelRecord, 'id'>;
export type NewGroup = Omit<GroupRecord, 'id'>;

/** Storage the domain needs; the drizzle implementation lives in src/db. */
export interface NotifierRepo {
  listChannels(): Promise<ChannelRecord[]>;
  getChannel(id: number): Promise<ChannelRecord | null>;
  getChannels(ids: number[]): Promise<ChannelRecord[]>;
  createChannel(c: NewChannel): Promise<ChannelRecord>;
  updateChannel(id: number, c: Omit<NewChannel, 'created_at'>): Promise<ChannelRecord | null>;
  /** Deletes the channel and drops its id from every group and event setting. */
  deleteChannel(id: number, now: number): Promise<boolean>;

  listGroups(): Promise<GroupRecord[]>;
  getGroup(id: number): Promise<GroupRecord | null>;
  getGroups(ids: number[]): Promise<GroupRecord[]>;
  createGroup(g: NewGroup): Promise<GroupRecord>;
  updateGroup(id: number, g: Omit<NewGroup, 'created_at'>): Promise<GroupRecord | null>;
  /** Deletes the group and drops its id from every event setting. */
  deleteGroup(id: number, now: number): Promise<boolean>;

  listSettings(): Promise<SettingRecord[]>;
  getSetting(event: NotificationEvent): Promise<SettingRecord | null>;
  putSetting(s: SettingRecord): Promise<SettingRecord>;

  /** True the first time an event id is seen; false for a redelivery. */
  claimEvent(eventId: string, event: string, now: number): Promise<boolean>;
  pruneEvents(before: number): Promise<number>;

  addDelivery(d: Omit<DeliveryRecord, 'id'>): Promise<DeliveryRecord>;
  listDeliveries(limit: number): Promise<DeliveryRecord[]>;

  addRetry(r: Omit<PendingRetry, 'id'>): Promise<PendingRetry>;
  removeRetry(id: number): Promise<void>;
  listRetries(): Promise<PendingRetry[]>;
}

export interface Message {
  title: string;
  body: string;
}

export type SendOutcome = { ok: true } | { ok: false; error: string; retryable: boolean };

/** Sends one message to one channel over its real protocol. */
export type Deliver = (
  channel: ChannelRecord,
  message: Message,
  context: Record<string, unknown>,
) => Promise<SendOutcome>;

/** A refusal the gateway maps to HTTP: not_found 404, invalid 422 (detail names the field). */
export class NotifierError extends Error {
  constructor(
    readonly kind: 'not_found' | 'invalid',
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'NotifierError';
  }
}
