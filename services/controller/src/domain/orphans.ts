import { stoppedEvents } from './events.js';
import { estimateFuel } from './fuel.js';
import type { EventDraft, OpenRun, RunClose } from './types.js';

const NOTE = 'orphaned run closed at controller boot';

/**
 * Closes the runs the previous process left open: reason `error`, stopped at the last time the
 * controller was known alive (never before the start, never after now).
 */
export function closeOrphans(
  open: OpenRun[],
  lastAliveAt: number | null,
  now: number,
  fuelType: string,
): { closeRuns: RunClose[]; events: EventDraft[]; closed: number[] } {
  const events: EventDraft[] = [];
  const closeRuns = open.map((run): RunClose => {
    const stop = Math.min(now, Math.max(run.start_time, lastAliveAt ?? now));
    const duration = Math.floor((stop - run.start_time) / 1000);
    const fuel = estimateFuel(duration, run.gph_at_run ?? 0);
    events.push(
      ...stoppedEvents(run.id, {
        trigger: run.trigger_type,
        reason: 'error',
        start_time: run.start_time,
        stop_time: stop,
        duration_seconds: duration,
        fuel_gallons: fuel,
        fuel_type: fuelType,
        note: NOTE,
      }),
    );
    return {
      ref: { id: run.id },
      stop_time: stop,
      duration_seconds: duration,
      stop_reason: 'error',
      estimated_fuel_used: fuel,
      stop_note: NOTE,
    };
  });
  return { closeRuns, events, closed: open.map((r) => r.id) };
}
