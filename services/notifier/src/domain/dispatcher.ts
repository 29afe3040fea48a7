import { randomUUID } from 'node:crypto';
import { type generator, NOTIFICATION_EVENTS, type NotificationEvent } from '@outpost/contracts';
import type { Clock } from '@outpost/runtime/clock';
import type { DomainLogger } from '@outpost/runtime/domain-logger';
import { Lanes } from './lanes.js';
import { DEFAULT_TEMPLATES, eventVariables, render } from './templates.js';
import type {
  ChannelRecord,
  Deliver,
  DeliveryStatus,
  Message,
  NotifierRepo,
  PendingRetry,
  SettingRecord,
} from './types.js';

export type { DomainLogger };

/** Waits after failed attempt 1, 2, 3: four attempts in all, the last about 2.5 minutes after the first. */
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000];

export interface DispatcherOptions {
  repo: NotifierRepo;
  deliver: Deliver;
  clock: Clock;
  logger: DomainLogger;
  retryDelaysMs?: number[];
  newId?: () => string;
}

interface Job {
  notification_id: string;
  source: string;
  event_id: string | null;
  channel_id: number;
  message: Message;
  context: Record<string, unknown>;
  /** Test sends are one attempt; everything else retries. */
  retries: boolean;
}

export interface Outcome {
  channel_id: number;
  status: DeliveryStatus;
  error: string | null;
}

export type EventResult = 'ignored' | 'duplicate' | 'disabled' | 'no_channels' | 'dispatched';

export function defaultSetting(event: NotificationEvent): Omit<SettingRecord, 'updated_at'> {
  const t = DEFAULT_TEMPLATES[event];
  return {
    event,
    enabled: true,
    channel_ids: [],
    group_ids: [],
    title_template: t.title,
    body_template: t.body,
  };
}

/**
 * Turns controller events into deliveries: one per channel, each attempt recorded, failures retried
 * with backoff on the injected clock, retries persisted so a restart resumes them.
 */
export class Dispatcher {
  private readonly delays: number[];
  private readonly newId: () => string;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly timers = new Set<unknown>();
  private stopped = false;
  /** Events are taken one at a time, in arrival order (a broker replays a backlog all at once). */
  private readonly events = new Lanes<'events'>();
  /** Each channel gets its notifications in event order: "stopped" never before "started". */
  private readonly channels = new Lanes<number>();

  constructor(private readonly o: DispatcherOptions) {
    this.delays = o.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.newId = o.newId ?? randomUUID;
  }

  /** Handles one controller event; safe to call twice with the same event_id. */
  handleEvent(ev: generator.ControllerEvent): Promise<EventResult> {
    return this.events.run('events', () => this.handleOne(ev));
  }

  private async handleOne(ev: generator.ControllerEvent): Promise<EventResult> {
    if (!(NOTIFICATION_EVENTS as readonly string[]).includes(ev.event)) return 'ignored';
    const event = ev.event as NotificationEvent;
    if (!(await this.o.repo.claimEvent(ev.event_id, event, this.o.clock.now()))) {
      this.o.logger.info({ event, event_id: ev.event_id }, 'duplicate event ignored');
      return 'duplicate';
    }
    const setting = (await this.o.repo.getSetting(event)) ?? defaultSetting(event);
    if (!setting.enabled) return 'disabled';
    const channelIds = await this.resolveChannels(setting.channel_ids, setting.group_ids);
    if (channelIds.length === 0) return 'no_channels';
    const vars = eventVariables(ev.data, ev.timestamp);
    const message = {
      title: render(setting.title_template, vars),
      body: render(setting.body_template, vars),
    };
    const context = {
      event,
      event_id: ev.event_id,
      controller_id: ev.controller_id,
      timestamp: ev.timestamp,
    };
    const notification_id = this.newId();
    for (const channel_id of channelIds) {
      const job = {
        notification_id,
        source: event,
        event_id: ev.event_id,
        channel_id,
        message,
        context,
        retries: true,
      };
      // First attempts keep the event order per channel; retries come later on their own schedule.
      this.track(this.channels.run(channel_id, () => this.attempt(job, 1)));
    }
    return 'dispatched';
  }

  /** Sends to the given channels now; resolves with each first attempt (retries go on in the background). */
  async sendNow(
    message: Message,
    channelIds: number[],
    source: 'manual' | 'test',
  ): Promise<{ notification_id: string; results: Outcome[] }> {
    const notification_id = this.newId();
    const context = { event: source };
    const results = await Promise.all(
      [...new Set(channelIds)].map((channel_id) =>
        this.track(
          this.attempt(
            {
              notification_id,
              source,
              event_id: null,
              channel_id,
              message,
              context,
              retries: source !== 'test',
            },
            1,
          ),
        ),
      ),
    );
    return { notification_id, results };
  }

  /** Schedules the retries a previous process left owed. */
  async resume(): Promise<number> {
    const owed = await this.o.repo.listRetries();
    for (const r of owed) this.schedule(r);
    return owed.length;
  }

  /** Resolves once no attempt is running (scheduled retries may remain). */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) this.o.clock.clearTimeout(t as never);
    this.timers.clear();
  }

  private async resolveChannels(channelIds: number[], groupIds: number[]): Promise<number[]> {
    const ids = new Set(channelIds);
    for (const g of await this.o.repo.getGroups(groupIds))
      if (g.enabled) for (const id of g.channel_ids) ids.add(id);
    const channels = await this.o.repo.getChannels([...ids]);
    return channels
      .filter((c) => c.enabled)
      .map((c) => c.id)
      .sort((a, b) => a - b);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    const done = () => this.inflight.delete(p);
    p.then(done, (err: unknown) => {
      done();
      this.o.logger.error({ err }, 'delivery task failed');
    });
    return p;
  }

  private async attempt(job: Job, attempt: number): Promise<Outcome> {
    const channel = await this.o.repo.getChannel(job.channel_id);
    let result: { ok: true } | { ok: false; error: string; retryable: boolean };
    if (!channel) result = { ok: false, error: 'channel was deleted', retryable: false };
    else if (!channel.enabled && job.source !== 'test')
      result = { ok: false, error: 'channel is disabled', retryable: false };
    else {
      try {
        result = await this.o.deliver(channel, job.message, job.context);
      } catch (err) {
        result = {
          ok: false,
          error: `delivery failed: ${(err as Error)?.message ?? 'error'}`,
          retryable: true,
        };
      }
    }
    const maxAttempts = job.retries ? this.delays.length + 1 : 1;
    const status: DeliveryStatus = result.ok
      ? 'sent'
      : result.retryable && attempt < maxAttempts
        ? 'retrying'
        : 'failed';
    const error = result.ok ? null : result.error;
    await this.record(job, channel, attempt, status, error);
    if (status === 'retrying') {
      const retry = await this.o.repo.addRetry({
        notification_id: job.notification_id,
        source: job.source,
        event_id: job.event_id,
        channel_id: job.channel_id,
        title: job.message.title,
        body: job.message.body,
        next_attempt: attempt + 1,
        due_at: this.o.clock.now() + this.delays[attempt - 1]!,
        context: job.context,
      });
      this.schedule(retry);
    }
    const log = status === 'sent' ? 'info' : 'warn';
    this.o.logger[log](
      { notification_id: job.notification_id, channel_id: job.channel_id, attempt, status, error },
      'notification attempt',
    );
    return { channel_id: job.channel_id, status, error };
  }

  private async record(
    job: Job,
    channel: ChannelRecord | null,
    attempt: number,
    status: DeliveryStatus,
    error: string | null,
  ): Promise<void> {
    await this.o.repo.addDelivery({
      notification_id: job.notification_id,
      source: job.source,
      event_id: job.event_id,
      channel_id: job.channel_id,
      channel_name: channel?.name ?? `#${job.channel_id}`,
      channel_type: channel?.channel_type ?? 'unknown',
      title: job.message.title,
      body: job.message.body,
      attempt,
      status,
      error,
      created_at: this.o.clock.now(),
    });
  }

  private schedule(r: PendingRetry): void {
    if (this.stopped) return;
    const handle = this.o.clock.setTimeout(
      () => {
        this.timers.delete(handle);
        this.track(this.runRetry(r));
      },
      Math.max(0, r.due_at - this.o.clock.now()),
    );
    this.timers.add(handle);
  }

  private async runRetry(r: PendingRetry): Promise<void> {
    try {
      await this.o.repo.removeRetry(r.id);
      await this.attempt(
        {
          notification_id: r.notification_id,
          source: r.source,
          event_id: r.event_id,
          channel_id: r.channel_id,
          message: { title: r.title, body: r.body },
          context: r.context,
          retries: true,
        },
        r.next_attempt,
      );
    } catch (err) {
      this.o.logger.error({ err, notification_id: r.notification_id }, 'retry failed to run');
    }
  }
}
