import type { Clock, TimerHandle } from '@outpost/runtime/clock';
import { decideReboot, nextReboot, scheduleMatches } from '../domain/reboot-schedule.js';
import type { LogSink } from '../domain/relay-node.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { PowerControl } from './power.js';

/**
 * How often the armed time is compared with the schedule and the clock: a schedule changed through
 * the API, or the clock set (a Pi without a real-time clock after NTP), moves the timer within this.
 * Under a minute, so a change made just before the scheduled minute still catches it.
 */
const WATCH_MS = 20_000;

/** A timer on the injected clock for the next scheduled minute, computed by croner from that clock. */
export class RebootScheduler {
  private watch: TimerHandle | null = null;
  private timer: TimerHandle | null = null;
  private armedFor: number | null = null;

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
    this.watch = this.o.clock.setInterval(() => this.arm(), WATCH_MS);
    this.arm();
  }

  stop(): void {
    this.o.clock.clearInterval(this.watch);
    this.o.clock.clearTimeout(this.timer);
    this.watch = null;
    this.timer = null;
    this.armedFor = null;
  }

  private arm(): void {
    const schedule = this.o.settings.get().reboot_schedule;
    const now = this.o.clock.now();
    // Set during its own minute: due now (the handled day keeps it to once).
    if (scheduleMatches(schedule, new Date(now))) void this.check();
    const at = nextReboot(schedule, new Date(now))?.getTime() ?? null;
    if (at === this.armedFor) return;
    this.o.clock.clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = at;
    if (at === null) return;
    this.timer = this.o.clock.setTimeout(
      () => {
        this.timer = null;
        this.armedFor = null;
        void this.check().finally(() => {
          if (this.watch !== null) this.arm();
        });
      },
      Math.max(0, at - now),
    );
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
