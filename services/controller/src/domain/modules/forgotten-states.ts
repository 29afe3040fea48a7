import { TimerSlot } from '../clock.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { noticeEvents } from '../health-events.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** One state that should not be left on: since when, and when its next reminder is due. */
class Reminder {
  private since: number | null = null;
  private next: number | null = null;
  readonly timer: TimerSlot;

  constructor(
    private readonly core: ModuleHost,
    private readonly kind: 'disarmed' | 'override',
    private readonly describe: () => string,
  ) {
    this.timer = new TimerSlot(core.clock, () => this.fire());
  }

  /** `since` is when the state began, or null while it is not in force. */
  follow(since: number | null, afterMs: number): void {
    if (since === null || afterMs <= 0) {
      this.since = null;
      this.next = null;
      this.timer.cancel();
      return;
    }
    if (since !== this.since) {
      this.since = since;
      // After a restart the reminder keeps its daily rhythm instead of firing at once.
      const first = since + afterMs;
      const now = this.core.now;
      this.next = first >= now ? first : first + Math.ceil((now - first) / DAY_MS) * DAY_MS;
    }
    this.timer.at(this.next);
  }

  private fire(): void {
    const core = this.core;
    void core.serial
      .run(async () => {
        if (this.since === null || this.next === null || this.next > core.now) return;
        const hours = Math.floor((core.now - this.since) / HOUR_MS);
        const details = `${this.describe()} for ${hours} h`;
        this.next += DAY_MS;
        this.timer.at(this.next);
        await core.persist({
          label: `reminder:${this.kind}`,
          events: () =>
            noticeEvents(
              `${this.kind}_reminder`,
              `generator.reminder.${this.kind}`,
              core.now,
              'reminder',
              details,
              {
                since: Math.floor((this.since ?? core.now) / 1000),
                hours,
              },
            ),
        });
      })
      .catch((err) => core.deps.logger.error({ err }, 'reminder failed'));
  }
}

/**
 * Reminders for states people forget: automation disarmed, or a force_run/force_stop override left
 * on, for longer than DISARMED_REMINDER_HOURS (0: never), then once a day while it lasts. Both count
 * from when the state began as stored, so a restart does not put a reminder off; only a state written
 * before automation_disarmed_at existed (or a fresh one, never armed) counts from the boot.
 */
export class ForgottenStates implements ControllerModule {
  private disarmedSince: number | null = null;
  private readonly disarmed: Reminder;
  private readonly override: Reminder;

  constructor(private readonly core: ModuleHost) {
    this.disarmed = new Reminder(core, 'disarmed', () => 'automation has been disarmed');
    this.override = new Reminder(core, 'override', () => `override ${core.state.override_type} has been on`);
  }

  start(): void {
    this.core.events.on('booted', () => this.follow());
    this.core.events.on('rearm', () => this.follow());
  }

  stop(): void {
    this.disarmed.timer.cancel();
    this.override.timer.cancel();
  }

  private follow(): void {
    const core = this.core;
    const afterMs = (core.deps.config.disarmedReminderHours ?? 0) * HOUR_MS;
    const s = core.state;
    if (s.automation_armed) this.disarmedSince = null;
    else this.disarmedSince = s.automation_disarmed_at ?? this.disarmedSince ?? core.now;
    this.disarmed.follow(this.disarmedSince, afterMs);
    this.override.follow(s.override_type === null ? null : (s.override_since ?? core.now), afterMs);
  }
}
