import {
  type ChannelType,
  formatIssues,
  type NotificationEvent,
  NotificationEvent as NotificationEventSchema,
  notifier,
} from '@outpost/contracts';
import type { Clock } from '@outpost/runtime/clock';
import { channelTargets } from '@outpost/notification-senders';
import { type Dispatcher, defaultSetting, type Outcome } from './dispatcher.js';
import { keepSecrets, maskConfig } from './secrets.js';
import { unknownVariables } from './templates.js';
import {
  type ChannelRecord,
  type GroupRecord,
  NotifierError,
  type NotifierRepo,
  type SettingRecord,
} from './types.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function channelView(c: ChannelRecord): notifier.Channel {
  return {
    id: c.id,
    name: c.name,
    channel_type: c.channel_type,
    config: maskConfig(c.channel_type, c.config),
    enabled: c.enabled,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

export function groupView(g: GroupRecord): notifier.Group {
  return { ...g, created_at: iso(g.created_at), updated_at: iso(g.updated_at) };
}

function settingView(
  event: NotificationEvent,
  s: SettingRecord | null,
): notifier.SystemNotificationSettingOut {
  const v = s ?? defaultSetting(event);
  return {
    event,
    enabled: v.enabled,
    channel_ids: v.channel_ids,
    group_ids: v.group_ids,
    title_template: v.title_template,
    body_template: v.body_template,
    configured: s !== null,
  };
}

const invalid = (detail: string) => new NotifierError('invalid', detail);

/** Channels, groups and event settings: validation beyond the schema (ids exist, URLs parse, templates). */
export class NotifierService {
  constructor(
    private readonly repo: NotifierRepo,
    private readonly dispatcher: Dispatcher,
    private readonly clock: Clock,
    /**
     * The outbound policy's refusal of a channel's targets (a loopback, private or link-local address
     * not in OUTBOUND_ALLOWED_NETWORKS), naming the address; asked when a channel is set or tested, so
     * such a channel is refused then rather than stored and never delivered.
     */
    private readonly targetRefusal: (
      channelType: string,
      config: unknown,
    ) => Promise<string | null> = async () => null,
  ) {}

  private async assertReachable(channelType: string, config: unknown): Promise<void> {
    const why = await this.targetRefusal(channelType, config);
    if (why) throw invalid(`config: ${why}`);
  }

  async listChannels(): Promise<notifier.Channel[]> {
    return (await this.repo.listChannels()).map(channelView);
  }

  async getChannel(id: number): Promise<notifier.Channel> {
    return channelView(await this.mustChannel(id));
  }

  /**
   * A fresh install notifies nobody: every event starts with no channel. The first channel created
   * therefore becomes the channel of every event nobody has configured yet, and the answer says which,
   * so the console can tell the user (and where to change it).
   */
  async createChannel(input: notifier.ChannelInput): Promise<notifier.ChannelCreated> {
    this.checkTargets(input.channel_type, input.config);
    await this.assertReachable(input.channel_type, input.config);
    const now = this.clock.now();
    const created = await this.repo.createChannel({
      name: input.name,
      channel_type: input.channel_type,
      config: input.config as Record<string, unknown>,
      enabled: input.enabled,
      created_at: now,
      updated_at: now,
    });
    const defaultFor: NotificationEvent[] = [];
    if ((await this.repo.listChannels()).length === 1) {
      const configured = new Set((await this.repo.listSettings()).map((s) => s.event));
      for (const event of NotificationEventSchema.options) {
        if (configured.has(event)) continue;
        await this.repo.putSetting({ ...defaultSetting(event), channel_ids: [created.id], updated_at: now });
        defaultFor.push(event);
      }
    }
    return { ...channelView(created), default_for_events: defaultFor };
  }

  /** An update may leave secrets out (or echo their masked form) to keep them. */
  async updateChannel(id: number, update: notifier.ChannelUpdate): Promise<notifier.Channel> {
    const stored = await this.mustChannel(id);
    const config =
      stored.channel_type === update.channel_type
        ? keepSecrets(update.channel_type, update.config as Record<string, unknown>, stored.config)
        : (update.config as Record<string, unknown>);
    const parsed = notifier.ChannelInput.safeParse({ ...update, config });
    if (!parsed.success) throw invalid(formatIssues(parsed.error));
    this.checkTargets(parsed.data.channel_type, parsed.data.config);
    await this.assertReachable(parsed.data.channel_type, parsed.data.config);
    const updated = await this.repo.updateChannel(id, {
      name: parsed.data.name,
      channel_type: parsed.data.channel_type,
      config: parsed.data.config as Record<string, unknown>,
      enabled: parsed.data.enabled,
      updated_at: this.clock.now(),
    });
    if (!updated) throw new NotifierError('not_found', `Channel ${id} not found`);
    return channelView(updated);
  }

  async deleteChannel(id: number): Promise<void> {
    if (!(await this.repo.deleteChannel(id, this.clock.now())))
      throw new NotifierError('not_found', `Channel ${id} not found`);
  }

  async testChannel(id: number): Promise<{ notification_id: string; results: Outcome[] }> {
    const c = await this.mustChannel(id);
    await this.assertReachable(c.channel_type, c.config);
    return this.dispatcher.sendNow(
      {
        title: 'Outpost test notification',
        body: `Test message for channel "${c.name}" (${c.channel_type}).`,
      },
      [id],
      'test',
    );
  }

  async send(
    req: notifier.SendNotificationRequest,
  ): Promise<{ notification_id: string; results: Outcome[] }> {
    await this.checkChannelIds('channel_ids', req.channel_ids);
    return this.dispatcher.sendNow({ title: req.title, body: req.body }, req.channel_ids, 'manual');
  }

  async listGroups(): Promise<notifier.Group[]> {
    return (await this.repo.listGroups()).map(groupView);
  }

  async getGroup(id: number): Promise<notifier.Group> {
    return groupView(await this.mustGroup(id));
  }

  async createGroup(input: notifier.GroupInput): Promise<notifier.Group> {
    await this.checkChannelIds('channel_ids', input.channel_ids);
    const now = this.clock.now();
    const g = await this.repo.createGroup({
      ...input,
      channel_ids: [...new Set(input.channel_ids)],
      created_at: now,
      updated_at: now,
    });
    return groupView(g);
  }

  async updateGroup(id: number, input: notifier.GroupInput): Promise<notifier.Group> {
    await this.mustGroup(id);
    await this.checkChannelIds('channel_ids', input.channel_ids);
    const g = await this.repo.updateGroup(id, {
      ...input,
      channel_ids: [...new Set(input.channel_ids)],
      updated_at: this.clock.now(),
    });
    if (!g) throw new NotifierError('not_found', `Group ${id} not found`);
    return groupView(g);
  }

  async deleteGroup(id: number): Promise<void> {
    if (!(await this.repo.deleteGroup(id, this.clock.now())))
      throw new NotifierError('not_found', `Group ${id} not found`);
  }

  async listSettings(): Promise<notifier.SystemNotificationSettingOut[]> {
    const stored = new Map((await this.repo.listSettings()).map((s) => [s.event, s]));
    return NotificationEventSchema.options.map((e) => settingView(e, stored.get(e) ?? null));
  }

  async getSetting(event: NotificationEvent): Promise<notifier.SystemNotificationSettingOut> {
    return settingView(event, await this.repo.getSetting(event));
  }

  async putSetting(
    event: NotificationEvent,
    input: notifier.SystemNotificationSetting,
  ): Promise<notifier.SystemNotificationSettingOut> {
    const problems: string[] = [];
    for (const field of ['title_template', 'body_template'] as const) {
      const bad = unknownVariables(input[field]);
      if (bad.length) problems.push(`${field}: unknown variable ${bad.map((b) => `{{${b}}}`).join(', ')}`);
    }
    const missingChannels = await this.missing(input.channel_ids, (ids) => this.repo.getChannels(ids));
    if (missingChannels.length) problems.push(`channel_ids: unknown channel ${missingChannels.join(', ')}`);
    const missingGroups = await this.missing(input.group_ids, (ids) => this.repo.getGroups(ids));
    if (missingGroups.length) problems.push(`group_ids: unknown group ${missingGroups.join(', ')}`);
    if (problems.length) throw invalid(problems.join('; '));
    const saved = await this.repo.putSetting({
      event,
      ...input,
      channel_ids: [...new Set(input.channel_ids)],
      group_ids: [...new Set(input.group_ids)],
      updated_at: this.clock.now(),
    });
    return settingView(event, saved);
  }

  private checkTargets(type: ChannelType, config: unknown): void {
    const r = channelTargets(type, config as never);
    if (!r.ok) throw invalid(`config.${r.field}: ${r.error}`);
  }

  private async mustChannel(id: number): Promise<ChannelRecord> {
    const c = await this.repo.getChannel(id);
    if (!c) throw new NotifierError('not_found', `Channel ${id} not found`);
    return c;
  }

  private async mustGroup(id: number): Promise<GroupRecord> {
    const g = await this.repo.getGroup(id);
    if (!g) throw new NotifierError('not_found', `Group ${id} not found`);
    return g;
  }

  private async checkChannelIds(field: string, ids: number[]): Promise<void> {
    const missing = await this.missing(ids, (x) => this.repo.getChannels(x));
    if (missing.length) throw invalid(`${field}: unknown channel ${missing.join(', ')}`);
  }

  private async missing(
    ids: number[],
    load: (ids: number[]) => Promise<{ id: number }[]>,
  ): Promise<number[]> {
    if (ids.length === 0) return [];
    const found = new Set((await load(ids)).map((x) => x.id));
    return [...new Set(ids)].filter((id) => !found.has(id));
  }
}
