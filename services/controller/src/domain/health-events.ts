import type { health } from '@outpost/contracts';
import { systemEvent } from './events.js';
import type { EventDraft } from './types.js';

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
