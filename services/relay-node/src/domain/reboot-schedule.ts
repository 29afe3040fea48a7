import type { relaynode } from '@outpost/contracts';

/**
 * Scheduled reboot (spec): runs only when the schedule is enabled, the time matches and the relay is
 * OFF; when the generator is running at that time the reboot is skipped for that day.
 */

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

export type RebootDecision =
  | { action: 'none' }
  | { action: 'reboot'; day: string }
  | { action: 'skip'; day: string; reason: string };

/** Local calendar day key, so one scheduled minute is handled at most once per day. */
export function dayKey(at: Date): string {
  const m = String(at.getMonth() + 1).padStart(2, '0');
  const d = String(at.getDate()).padStart(2, '0');
  return `${at.getFullYear()}-${m}-${d}`;
}

export function scheduleMatches(schedule: relaynode.RebootSchedule, at: Date): boolean {
  if (!schedule.enabled) return false;
  if (schedule.day !== 'daily' && DAYS[at.getDay()] !== schedule.day) return false;
  return at.getHours() === schedule.hour && at.getMinutes() === schedule.minute;
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
