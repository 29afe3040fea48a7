const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export interface MaintenanceDef {
  id: number;
  name: string;
  interval_hours: number | null;
  interval_months: number | null;
  lead_hours: number | null;
  lead_days: number | null;
  last_done_at: number;
  last_done_engine_ms: number;
  upcoming_notified: boolean;
  due_notified: boolean;
}

export type MaintenanceStatus = 'ok' | 'upcoming' | 'due';

export interface DueInfo {
  status: MaintenanceStatus;
  due_engine_hours: number | null;
  /** ms */
  due_at: number | null;
}

interface Local {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function localParts(ms: number, tz: string): Local {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  const v: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(ms))) if (p.type !== 'literal') v[p.type] = Number(p.value);
  return {
    y: v.year ?? 0,
    m: v.month ?? 1,
    d: v.day ?? 1,
    h: v.hour ?? 0,
    mi: v.minute ?? 0,
    s: v.second ?? 0,
  };
}

/** The instant a wall-clock time in the zone names (the later one in a DST gap, resolved by two passes). */
function fromLocal(l: Local, tz: string): number {
  const wall = Date.UTC(l.y, l.m - 1, l.d, l.h, l.mi, l.s);
  const offsetAt = (ms: number) => {
    const p = localParts(ms, tz);
    return Date.UTC(p.y, p.m - 1, p.d, p.h, p.mi, p.s) - Math.floor(ms / 1000) * 1000;
  };
  let t = wall - offsetAt(wall);
  t = wall - offsetAt(t);
  return t;
}

/**
 * Calendar months later at the same local time in the zone (TZ): the 31st becomes the month's last
 * day, and a DST change between the two dates keeps the wall-clock time, not the elapsed hours.
 */
export function addMonthsInZone(ms: number, months: number, tz: string): number {
  const l = localParts(ms, tz);
  const index = l.m - 1 + months;
  const y = l.y + Math.floor(index / 12);
  const m = (((index % 12) + 12) % 12) + 1;
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return fromLocal({ ...l, y, m, d: Math.min(l.d, last) }, tz) + (ms % 1000);
}

/** When an item is due (engine hours, date or both) and whether it is due or within its lead time. */
export function dueInfo(item: MaintenanceDef, engineMs: number, now: number, tz: string): DueInfo {
  const dueHours =
    item.interval_hours === null ? null : item.last_done_engine_ms / HOUR_MS + item.interval_hours;
  const dueAt =
    item.interval_months === null ? null : addMonthsInZone(item.last_done_at, item.interval_months, tz);
  const hours = engineMs / HOUR_MS;
  // A hair of tolerance so 2.0 h of runs counted in ms reads as the 2 h it is.
  const reached = (x: number, limit: number) => x + 1e-9 >= limit;
  const due = (dueHours !== null && reached(hours, dueHours)) || (dueAt !== null && reached(now, dueAt));
  const upcoming =
    (dueHours !== null && item.lead_hours !== null && reached(hours, dueHours - item.lead_hours)) ||
    (dueAt !== null && item.lead_days !== null && reached(now, dueAt - item.lead_days * DAY_MS));
  return {
    status: due ? 'due' : upcoming ? 'upcoming' : 'ok',
    due_engine_hours: dueHours === null ? null : Math.round(dueHours * 1000) / 1000,
    due_at: dueAt,
  };
}
