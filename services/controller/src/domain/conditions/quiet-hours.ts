import type { QuietHours } from '@outpost/contracts/conditions';
import { nextDaily } from '../schedule-time.js';

/**
 * Whether `now` falls in the quiet hours (local time in the zone), and when that next changes. The
 * window may cross midnight (22:00–07:00); start equal to end is an empty window. Inside the window
 * the next end comes before the next start.
 */
export function quietHoursAt(
  q: QuietHours,
  timezone: string,
  now: number,
): { quiet: boolean; changesAt: number | null } {
  if (!q.enabled || q.start === q.end) return { quiet: false, changesAt: null };
  const nextStart = nextDaily(q.start, timezone, now);
  const nextEnd = nextDaily(q.end, timezone, now);
  return { quiet: nextEnd < nextStart, changesAt: Math.min(nextStart, nextEnd) };
}
