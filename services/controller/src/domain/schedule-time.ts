import { Cron } from 'croner';

const DAY = 86_400_000;

function pattern(hhmm: string, days: string): string {
  const [hh, mm] = hhmm.split(':');
  return `0 ${Number(mm)} ${Number(hh)} * * ${days}`;
}

/**
 * The next start of a weekly schedule strictly after `from` (ms), in the configured time zone.
 * days_of_week uses the cron convention: 0 = Sunday … 6 = Saturday.
 */
export function nextWeekly(
  daysOfWeek: number[],
  hhmm: string,
  timezone: string,
  from: number,
): number | null {
  if (daysOfWeek.length === 0) return null;
  const days = [...new Set(daysOfWeek)].sort((a, b) => a - b).join(',');
  const next = new Cron(pattern(hhmm, days), { timezone, paused: true }).nextRun(new Date(from));
  return next ? next.getTime() : null;
}

/** The first HH:MM in the time zone strictly after `from`. */
export function nextDaily(hhmm: string, timezone: string, from: number): number {
  const next = new Cron(pattern(hhmm, '*'), { timezone, paused: true }).nextRun(new Date(from));
  if (!next) throw new Error('no next daily occurrence');
  return next.getTime();
}

/** The exercise after one that was due at `previousDue`: HH:MM on the day frequency_days later. */
export function nextExercise(
  hhmm: string,
  timezone: string,
  frequencyDays: number,
  previousDue: number,
): number {
  // Starting half a day early lands on the right calendar day across DST shifts.
  return nextDaily(hhmm, timezone, previousDue + frequencyDays * DAY - DAY / 2);
}
