import type { Clock, TimerHandle } from '@outpost/runtime/clock';
import { decideReboot } from '../domain/reboot-schedule.js';
import type { LogSink } from '../domain/relay-node.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { PowerControl } from './power.js';

/** Checks the schedule twice a minute, so a matching minute is never missed. */
const CHECK_MS = 20_000;

export class RebootScheduler {
  private timer: TimerHandle | null = null;

  constructor(
    private readonly o: {
      clock: Clock;
      settings: SettingsStore;
      relayOn: () => boolean;
      power: PowerControl;
      log: LogSink;
    },
  ) {}

  start(): void {
    this.timer = this.o.clock.setInterval(() => void this.check(), CHECK_MS);
  }

  stop(): void {
    this.o.clock.clearInterval(this.timer);
    this.timer = null;
  }

  async check(): Promise<void> {
    const s = this.o.settings.get();
    const d = decideReboot(
      s.reboot_schedule,
      new Date(this.o.clock.now()),
      this.o.relayOn(),
      s.reboot_handled_day,
    );
    if (d.action === 'none') return;
    this.o.settings.update({ reboot_handled_day: d.day });
    if (d.action === 'skip') {
      this.o.log.warn({ day: d.day }, `scheduled reboot skipped for today: ${d.reason}`);
      return;
    }
    this.o.log.warn({ day: d.day }, 'scheduled reboot');
    try {
      await this.o.power.reboot();
    } catch (err) {
      this.o.log.error({ err }, 'scheduled reboot failed');
    }
  }
}
