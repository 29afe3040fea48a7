import type { relaynode } from '@outpost/contracts';
import { Cron } from 'croner';

/**
 * Scheduled reboot (spec): runs only when the schedule is enabled, the time matches and the relay is
 * OFF; when the generator is running at that time the reboot is skipped for that day. The schedule
 * is a cron pattern (croner) in the node's local time; every date comes from the caller's clock.
 */

const DAY_NUMBER: Record<Exclude<relaynode.RebootSchedule['day'], 'daily'>, number> = {
  sunday: 0,
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6,
};

export type RebootDecision =
  | { action: 'none' }
  | { action: 'reboot'; day: string }
  | { action: 'skip'; day: string; reason: string };

/** `minute hour * * day-of-week`, e.g. `30 3 * * 1` for Mondays at 03:30. */
export function cronPattern(schedule: relaynode.RebootSchedule): string {
  const dow = schedule.day === 'daily' ? '*' : String(DAY_NUMBER[schedule.day]);
  return `${schedule.minute} ${schedule.hour} * * ${dow}`;
}

/** Only computes dates: paused, so croner never starts a timer of its own. */
const cronOf = (schedule: relaynode.RebootSchedule) => new Cron(cronPattern(schedule), { paused: true });

/** The next scheduled minute strictly after `after`, or null while the schedule is off. */
export function nextReboot(schedule: relaynode.RebootSchedule, after: Date): Date | null {
  return schedule.enabled ? cronOf(schedule).nextRun(after) : null;
}

/** Local calendar day key, so one scheduled minute is handled at most once per day. */
export function dayKey(at: Date): string {
  const m = String(at.getMonth() + 1).padStart(2, '0');
  const d = String(at.getDate()).padStart(2, '0');
  return `${at.getFullYear()}-${m}-${d}`;
}

/** Whether `at` falls in a scheduled minute (any second of it). */
export function scheduleMatches(schedule: relaynode.RebootSchedule, at: Date): boolean {
  if (!schedule.enabled) return false;
  const minute = new Date(at.getTime());
  minute.setSeconds(0, 0);
  return cronOf(schedule).match(minute);
}

export function decideReboot(
  schedule: relaynode.RebootSchedule,
  at: Date,
  relayOn: boolean,
  lastHandledDay: string | null,
): RebootDecision {
  if (!scheduleMatches(schedule, at)) return { action: 'none' };
  const day = dayKey(at);
  if (day === lastHandledDay) return { action: 'none' };
  if (relayOn) return { action: 'skip', day, reason: 'relay is ON (generator running)' };
  return { action: 'reboot', day };
}
