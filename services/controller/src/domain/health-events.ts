import type { health } from '@outpost/contracts';
import type { ModuleHost } from './controller-module.js';
import { systemEvent } from './events.js';
import type { Actor, EventDraft } from './types.js';

/**
 * An alarm goes to two audiences: the notifier reads the bare name (`fail_to_start`), webhooks
 * receive only `generator.*` events, so each alarm is also `generator.alarm.<name>` with the same data.
 */
export function alarmEvents(
  alarm: health.HealthAlarm,
  now: number,
  details: string,
  extra: Record<string, unknown> = {},
): EventDraft[] {
  const event = systemEvent(alarm, now, 'alarm', details, { alarm, ...extra });
  return [event, { event: `generator.alarm.${alarm}`, data: event.data }];
}

/** A reminder or service notice: the notifier's name and `generator.<group>.<kind>` for webhooks. */
export function noticeEvents(
  name: string,
  webhookName: string,
  now: number,
  status: string,
  details: string,
  extra: Record<string, unknown> = {},
): EventDraft[] {
  const event = systemEvent(name, now, status, details, extra);
  return [event, { event: webhookName, data: event.data }];
}

/**
 * Records a standing alarm in the state (and the lockout a drop policy adds), with its events and an
 * audit entry; inside the caller's serial section.
 */
export async function raiseAlarm(
  core: ModuleHost,
  a: {
    alarm: health.HealthAlarm;
    details: string;
    extra: Record<string, unknown>;
    lockout: boolean;
    actor: Actor;
  },
): Promise<void> {
  const now = core.now;
  core.deps.logger.warn({ alarm: a.alarm, ...a.extra }, `${a.alarm}: ${a.details}`);
  const events: EventDraft[] = alarmEvents(a.alarm, now, a.details, a.extra);
  const next = { ...core.state, health_alarm: a.alarm, ...(a.lockout ? { lockout_active: true } : {}) };
  if (a.lockout && !core.state.lockout_active) {
    events.push(
      systemEvent('lockout_activated', now, 'locked_out', 'acknowledge to allow restarts', {
        run_id: a.extra.run_id ?? null,
      }),
    );
  }
  core.state = next;
  await core.persist({
    label: `alarm:${a.alarm}`,
    state: next,
    events: () => events,
    audit: [{ action: `alarm.${a.alarm}`, actor: a.actor, details: { details: a.details, ...a.extra } }],
  });
  core.afterChange(true);
}
