import type { health } from '@outpost/contracts';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { alarmEvents } from '../health-events.js';

const LINK = { who: 'system', from: 'relay-link' };

/** A forged report repeated every second must not become a notification every second. */
const UNVERIFIED_REPEAT_MS = 10 * 60_000;

/**
 * Alarms about the link itself rather than a run: a relay node report that does not verify
 * (`relay_node_report_unverified`), and a connected controller that cannot publish its lease
 * (`lease_not_published`, with the error). Each goes out as its events at once; it becomes the standing
 * alarm only when no other alarm stands, so it never hides a fail-to-start.
 */
export class LinkIntegrity implements ControllerModule {
  private lastUnverifiedAt: number | null = null;

  constructor(private readonly core: ModuleHost) {}

  start(): void {}

  /** A report that failed verification was ignored (raised at most once per ten minutes). */
  reportUnverified(reason: string): Promise<void> {
    const core = this.core;
    if (this.lastUnverifiedAt !== null && core.now - this.lastUnverifiedAt < UNVERIFIED_REPEAT_MS)
      return Promise.resolve();
    this.lastUnverifiedAt = core.now;
    return core.serial.run(() => this.raise('relay_node_report_unverified', reason));
  }

  /** The lease could not be published while connected (the reason), or was published again (null). */
  publishing(failure: string | null): Promise<void> {
    const core = this.core;
    return core.serial.run(async () => {
      if (failure !== null) return this.raise('lease_not_published', `relay lease not published: ${failure}`);
      if (core.state.health_alarm !== 'lease_not_published') return;
      const next = { ...core.state, health_alarm: null };
      core.state = next;
      await core.persist({
        label: 'alarm:lease_published',
        state: next,
        events: () => [],
        audit: [{ action: 'alarm.lease_not_published.cleared', actor: LINK, details: {} }],
      });
      core.afterChange(true);
    });
  }

  private async raise(alarm: health.HealthAlarm, details: string): Promise<void> {
    const core = this.core;
    core.deps.logger.warn({ alarm }, `${alarm}: ${details}`);
    const standing = core.state.health_alarm;
    const next = standing === null ? { ...core.state, health_alarm: alarm } : core.state;
    core.state = next;
    await core.persist({
      label: `alarm:${alarm}`,
      state: next,
      events: () => alarmEvents(alarm, core.now, details, { reason: details }),
      audit: [{ action: `alarm.${alarm}`, actor: LINK, details: { details } }],
    });
    core.afterChange(true);
  }
}
