import type { RelaynodeEvent, relaynode } from '@outpost/contracts';
import { redactNotifierUrl } from '@outpost/notification-senders';
import { HttpError } from '@outpost/runtime';
import type { AlertSender, AlertStore } from './domain/alerts.js';
import type { LogSink } from './domain/relay-node.js';
import {
  type DeliveryOptions,
  type DeliveryResult,
  deliverToAll,
  notifierUrlProblems,
} from './notifications.js';
import type { SettingsStore } from './settings/settings-store.js';
import type { PowerControl } from './system/power.js';

/**
 * Node administration shared by REST and the MQTT request verbs: notifier URLs and cooldowns, the
 * reboot schedule, and the guarded power operations.
 */

export interface AdminOptions {
  /** Power operations are refused while this is true. */
  relayOn: () => boolean;
  settings: SettingsStore;
  envNotifierUrls: string[];
  notify?: DeliveryOptions;
  power: PowerControl;
  log: LogSink;
  nodeId: string;
}

export class NodeAdmin {
  constructor(private readonly o: AdminOptions) {}

  notifierUrls(): string[] {
    return this.o.settings.get().notifier_urls ?? this.o.envNotifierUrls;
  }

  notificationsStatus(): relaynode.RelaynodeNotificationsStatus {
    const s = this.o.settings.get();
    return {
      notifier_urls: this.notifierUrls().map(redactNotifierUrl),
      source: s.notifier_urls === null ? 'environment' : 'settings',
      failsafe_cooldown_minutes: s.failsafe_cooldown_minutes,
      restored_cooldown_minutes: s.restored_cooldown_minutes,
    };
  }

  setNotifierUrls(urls: string[]): relaynode.RelaynodeNotificationsStatus {
    const problems = notifierUrlProblems(urls).map((p) => `notifier_urls.${p.index}: ${p.error}`);
    if (problems.length) throw new HttpError(422, problems.join('; '));
    this.o.settings.update({ notifier_urls: urls });
    this.o.log.info({ count: urls.length }, 'notifier URLs updated');
    return this.notificationsStatus();
  }

  setCooldowns(s: relaynode.RelaynodeNotificationSettings): relaynode.RelaynodeNotificationsStatus {
    this.o.settings.update(s);
    return this.notificationsStatus();
  }

  async testNotifications(): Promise<{ results: DeliveryResult[] }> {
    const urls = this.notifierUrls();
    if (urls.length === 0) throw new HttpError(409, 'No notifier URLs configured');
    const results = await deliverToAll(
      urls,
      { title: 'Test notification', body: `Relay node ${this.o.nodeId}: notifications work.`, type: 'info' },
      this.o.notify,
    );
    return { results };
  }

  rebootSchedule(): relaynode.RebootSchedule {
    return this.o.settings.get().reboot_schedule;
  }

  setRebootSchedule(s: relaynode.RebootSchedule): relaynode.RebootSchedule {
    // A changed schedule may legitimately fire again today.
    this.o.settings.update({ reboot_schedule: s, reboot_handled_day: null });
    this.o.log.info({ schedule: s }, 'reboot schedule updated');
    return s;
  }

  /** Reboot/shutdown: refused while the relay is ON, so a running generator is never orphaned by us. */
  async power(action: 'reboot' | 'shutdown'): Promise<{ status: string }> {
    if (this.o.relayOn()) {
      throw new HttpError(
        409,
        `Refusing to ${action} while the relay is ON (generator running); turn it off first`,
      );
    }
    this.o.log.warn({ action }, `${action} requested`);
    try {
      if (action === 'reboot') await this.o.power.reboot();
      else await this.o.power.powerOff();
    } catch (err) {
      throw new HttpError(503, `Could not ${action} through logind: ${(err as Error).message}`);
    }
    return { status: action === 'reboot' ? 'rebooting' : 'shutting_down' };
  }

  /** Cooldown bookkeeping for the failsafe alerts, persisted in the settings file. */
  alertStore(): AlertStore {
    const settings = this.o.settings;
    return {
      cooldownMinutes: (e: RelaynodeEvent) =>
        e === 'failsafe_triggered'
          ? settings.get().failsafe_cooldown_minutes
          : settings.get().restored_cooldown_minutes,
      lastSent: (e: RelaynodeEvent) => settings.get().last_notified[e] ?? null,
      markSent: (e: RelaynodeEvent, at: number) => {
        try {
          settings.update({ last_notified: { ...settings.get().last_notified, [e]: at } });
        } catch (err) {
          this.o.log.error({ err }, 'could not persist notification time');
        }
      },
    };
  }

  alertSender(): AlertSender {
    return async (m) => {
      const urls = this.notifierUrls();
      if (urls.length === 0) {
        this.o.log.warn({ event: m.event }, 'no notifier URLs configured; notification not sent');
        return;
      }
      const results = await deliverToAll(
        urls,
        { title: m.title, body: m.body, type: m.event === 'failsafe_triggered' ? 'failure' : 'success' },
        this.o.notify,
      );
      for (const r of results) {
        if (r.ok) this.o.log.info({ event: m.event, url: r.url }, 'notification delivered');
        else this.o.log.error({ event: m.event, url: r.url, error: r.error }, 'notification failed');
      }
    };
  }
}
