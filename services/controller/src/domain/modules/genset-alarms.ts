import type { genset } from '@outpost/contracts';
import { noticeEvents } from '../health-events.js';
import type { EventDraft } from '../types.js';

export type AlarmLevel = Exclude<genset.GensetAlarmLevel, 'none'>;

const LEVELS: readonly AlarmLevel[] = ['warning', 'shutdown', 'electrical_trip'];
const LEVEL_WORDS: Record<AlarmLevel, string> = {
  warning: 'warning',
  shutdown: 'shutdown',
  electrical_trip: 'electrical trip',
};

/** An alarm's key in the module's list: its position and level (a position may change level). */
const key = (a: genset.GensetAlarm): string => `${a.index}:${a.level}`;
const nameOf = (a: genset.GensetAlarm): string => a.name ?? `alarm ${a.index}`;

/** The active alarms' keys, to tell a new alarm from one already announced. */
export function alarmKeys(alarms: readonly genset.GensetAlarm[]): Set<string> {
  return new Set(alarms.map(key));
}

/** Alarms that shut the engine down: a shutdown, or an electrical trip (breaker open, then a stop). */
export function stopsEngine(alarms: readonly genset.GensetAlarm[]): genset.GensetAlarm[] {
  return alarms.filter((a) => a.level === 'shutdown' || a.level === 'electrical_trip');
}

/**
 * One notification (`genset_<level>`) and one webhook event (`generator.alarm.genset_<level>`) per
 * level that has alarms not active in the previous report, carrying every newly active alarm's name.
 */
export function newAlarmEvents(
  active: readonly genset.GensetAlarm[],
  before: ReadonlySet<string>,
  now: number,
  runId: number | null,
): EventDraft[] {
  const events: EventDraft[] = [];
  for (const level of LEVELS) {
    const fresh = active.filter((a) => a.level === level && !before.has(key(a)));
    if (fresh.length === 0) continue;
    const names = fresh.map(nameOf);
    const details = `the generator's controller raised a ${LEVEL_WORDS[level]} alarm: ${names.join(', ')}`;
    const name = `genset_${level}`;
    events.push(
      ...noticeEvents(name, `generator.alarm.${name}`, now, 'alarm', details, {
        alarm: name,
        level,
        alarms: names,
        run_id: runId,
      }),
    );
  }
  return events;
}
