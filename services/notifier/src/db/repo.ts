import type { NotificationEvent } from '@outpost/contracts';
import { asc, desc, eq, inArray, lt } from 'drizzle-orm';
import type {
  DeliveryRecord,
  NewChannel,
  NewGroup,
  NotifierRepo,
  PendingRetry,
  SettingRecord,
} from '../domain/types.js';
import type { Db } from './client.js';
import { toChannel, toDelivery, toGroup, toRetry, toSetting } from './rows.js';
import { channels, deliveries, eventSettings, groups, pendingRetries, processedEvents } from './schema.js';

const without = (ids: number[], id: number) => ids.filter((x) => x !== id);

/**
 * A failed channel write without its query parameters: drizzle puts them in the error message, and
 * they hold the channel's secrets, which must never reach a log.
 */
async function withoutParams<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const cause = (err as { cause?: { code?: unknown } })?.cause;
    const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
    // The driver's own error stays as the cause (its SQLSTATE and message, no parameters): the
    // gateway answers a value PostgreSQL cannot store (a NUL) with 422 from it.
    throw new Error(`database error while ${what}${code}`, { cause });
  }
}

/** The notifier's storage on drizzle and PostgreSQL. */
export class DrizzleNotifierRepo implements NotifierRepo {
  constructor(private readonly db: Db) {}

  async listChannels() {
    return (await this.db.select().from(channels).orderBy(asc(channels.id))).map(toChannel);
  }

  async getChannel(id: number) {
    const [row] = await this.db.select().from(channels).where(eq(channels.id, id));
    return row ? toChannel(row) : null;
  }

  async getChannels(ids: number[]) {
    if (ids.length === 0) return [];
    return (
      await this.db.select().from(channels).where(inArray(channels.id, ids)).orderBy(asc(channels.id))
    ).map(toChannel);
  }

  async createChannel(c: NewChannel) {
    const [row] = await withoutParams('saving a channel', () =>
      this.db
        .insert(channels)
        .values({
          name: c.name,
          channelType: c.channel_type,
          config: c.config,
          enabled: c.enabled,
          createdAt: c.created_at,
          updatedAt: c.updated_at,
        })
        .returning(),
    );
    return toChannel(row!);
  }

  async updateChannel(id: number, c: Omit<NewChannel, 'created_at'>) {
    const [row] = await withoutParams('saving a channel', () =>
      this.db
        .update(channels)
        .set({
          name: c.name,
          channelType: c.channel_type,
          config: c.config,
          enabled: c.enabled,
          updatedAt: c.updated_at,
        })
        .where(eq(channels.id, id))
        .returning(),
    );
    return row ? toChannel(row) : null;
  }

  async deleteChannel(id: number, now: number) {
    return this.db.transaction(async (tx) => {
      const gone = await tx.delete(channels).where(eq(channels.id, id)).returning({ id: channels.id });
      if (gone.length === 0) return false;
      for (const g of await tx.select().from(groups)) {
        if (g.channelIds.includes(id)) {
          await tx
            .update(groups)
            .set({ channelIds: without(g.channelIds, id), updatedAt: now })
            .where(eq(groups.id, g.id));
        }
      }
      for (const s of await tx.select().from(eventSettings)) {
        if (s.channelIds.includes(id)) {
          await tx
            .update(eventSettings)
            .set({ channelIds: without(s.channelIds, id), updatedAt: now })
            .where(eq(eventSettings.event, s.event));
        }
      }
      await tx.delete(pendingRetries).where(eq(pendingRetries.channelId, id));
      return true;
    });
  }

  async listGroups() {
    return (await this.db.select().from(groups).orderBy(asc(groups.id))).map(toGroup);
  }

  async getGroup(id: number) {
    const [row] = await this.db.select().from(groups).where(eq(groups.id, id));
    return row ? toGroup(row) : null;
  }

  async getGroups(ids: number[]) {
    if (ids.length === 0) return [];
    return (await this.db.select().from(groups).where(inArray(groups.id, ids)).orderBy(asc(groups.id))).map(
      toGroup,
    );
  }

  async createGroup(g: NewGroup) {
    const [row] = await this.db
      .insert(groups)
      .values({
        name: g.name,
        description: g.description,
        channelIds: g.channel_ids,
        enabled: g.enabled,
        createdAt: g.created_at,
        updatedAt: g.updated_at,
      })
      .returning();
    return toGroup(row!);
  }

  async updateGroup(id: number, g: Omit<NewGroup, 'created_at'>) {
    const [row] = await this.db
      .update(groups)
      .set({
        name: g.name,
        description: g.description,
        channelIds: g.channel_ids,
        enabled: g.enabled,
        updatedAt: g.updated_at,
      })
      .where(eq(groups.id, id))
      .returning();
    return row ? toGroup(row) : null;
  }

  async deleteGroup(id: number, now: number) {
    return this.db.transaction(async (tx) => {
      const gone = await tx.delete(groups).where(eq(groups.id, id)).returning({ id: groups.id });
      if (gone.length === 0) return false;
      for (const s of await tx.select().from(eventSettings)) {
        if (s.groupIds.includes(id)) {
          await tx
            .update(eventSettings)
            .set({ groupIds: without(s.groupIds, id), updatedAt: now })
            .where(eq(eventSettings.event, s.event));
        }
      }
      return true;
    });
  }

  async listSettings() {
    return (await this.db.select().from(eventSettings)).map(toSetting);
  }

  async getSetting(event: NotificationEvent) {
    const [row] = await this.db.select().from(eventSettings).where(eq(eventSettings.event, event));
    return row ? toSetting(row) : null;
  }

  async putSetting(s: SettingRecord) {
    const values = {
      enabled: s.enabled,
      channelIds: s.channel_ids,
      groupIds: s.group_ids,
      titleTemplate: s.title_template,
      bodyTemplate: s.body_template,
      updatedAt: s.updated_at,
    };
    const [row] = await this.db
      .insert(eventSettings)
      .values({ event: s.event, ...values })
      .onConflictDoUpdate({ target: eventSettings.event, set: values })
      .returning();
    return toSetting(row!);
  }

  async claimEvent(eventId: string, event: string, now: number) {
    const rows = await this.db
      .insert(processedEvents)
      .values({ eventId, event, receivedAt: now })
      .onConflictDoNothing()
      .returning({ id: processedEvents.eventId });
    return rows.length === 1;
  }

  async pruneEvents(before: number) {
    const rows = await this.db
      .delete(processedEvents)
      .where(lt(processedEvents.receivedAt, before))
      .returning({ id: processedEvents.eventId });
    return rows.length;
  }

  async addDelivery(d: Omit<DeliveryRecord, 'id'>) {
    const [row] = await this.db
      .insert(deliveries)
      .values({
        notificationId: d.notification_id,
        source: d.source,
        eventId: d.event_id,
        channelId: d.channel_id,
        channelName: d.channel_name,
        channelType: d.channel_type,
        title: d.title,
        body: d.body,
        attempt: d.attempt,
        status: d.status,
        error: d.error,
        createdAt: d.created_at,
      })
      .returning();
    return toDelivery(row!);
  }

  async listDeliveries(limit: number) {
    return (await this.db.select().from(deliveries).orderBy(desc(deliveries.id)).limit(limit)).map(
      toDelivery,
    );
  }

  async addRetry(r: Omit<PendingRetry, 'id'>) {
    const [row] = await this.db
      .insert(pendingRetries)
      .values({
        notificationId: r.notification_id,
        source: r.source,
        eventId: r.event_id,
        channelId: r.channel_id,
        title: r.title,
        body: r.body,
        nextAttempt: r.next_attempt,
        dueAt: r.due_at,
        context: r.context,
      })
      .returning();
    return toRetry(row!);
  }

  async removeRetry(id: number) {
    await this.db.delete(pendingRetries).where(eq(pendingRetries.id, id));
  }

  async listRetries() {
    return (await this.db.select().from(pendingRetries).orderBy(asc(pendingRetries.dueAt))).map(toRetry);
  }
}
