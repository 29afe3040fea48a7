import { startedEventName, stoppedEventName, type StopReason, type Trigger } from '@outpost/contracts';
import type { EventDraft } from './types.js';

const sec = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

export interface StartedInfo {
  trigger: Trigger;
  start_time: number;
  notes: string | null;
  fuel_type: string;
  scheduled_stop_at: number | null;
  scheduled_run_id: number | null;
}

/** generator.started.{trigger} (webhook) and generator_started (notification), plus exercise_started. */
export function startedEvents(runId: number | null, info: StartedInfo): EventDraft[] {
  const data = {
    run_id: runId,
    trigger: info.trigger,
    start_time: sec(info.start_time),
    notes: info.notes,
    fuel_type: info.fuel_type,
    scheduled_stop_at: sec(info.scheduled_stop_at),
    scheduled_run_id: info.scheduled_run_id,
  };
  const events: EventDraft[] = [
    { event: startedEventName(info.trigger), data },
    { event: 'generator_started', data },
  ];
  if (info.trigger === 'exercise') events.push({ event: 'exercise_started', data });
  return events;
}

export interface StoppedInfo {
  trigger: Trigger;
  reason: StopReason;
  start_time: number;
  stop_time: number;
  duration_seconds: number;
  fuel_gallons: number;
  fuel_type: string;
  note: string | null;
}

/** generator.stopped.{reason} and generator_stopped with runtime and fuel use; exercise_completed. */
export function stoppedEvents(runId: number | null, info: StoppedInfo): EventDraft[] {
  const data = {
    run_id: runId,
    trigger: info.trigger,
    reason: info.reason,
    start_time: sec(info.start_time),
    stop_time: sec(info.stop_time),
    runtime: info.duration_seconds,
    duration_seconds: info.duration_seconds,
    fuel_gallons: info.fuel_gallons,
    fuel_type: info.fuel_type,
    details: info.note,
  };
  const events: EventDraft[] = [
    { event: stoppedEventName(info.reason), data },
    { event: 'generator_stopped', data },
  ];
  if (info.trigger === 'exercise') events.push({ event: 'exercise_completed', data });
  return events;
}

/** A system event with the template variables timestamp, status, details. */
export function systemEvent(
  event: string,
  now: number,
  status: string,
  details: string,
  extra: Record<string, unknown> = {},
): EventDraft {
  return { event, data: { timestamp: Math.floor(now / 1000), status, details, ...extra } };
}
