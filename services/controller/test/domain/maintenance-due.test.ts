import { describe, expect, it } from 'vitest';
import { addMonthsInZone, dueInfo, type MaintenanceDef } from '../../src/domain/maintenance-due.js';

const HOUR = 3_600_000;
const item = (over: Partial<MaintenanceDef>): MaintenanceDef => ({
  id: 1,
  name: 'x',
  interval_hours: null,
  interval_months: null,
  lead_hours: null,
  lead_days: null,
  last_done_at: Date.UTC(2026, 0, 31, 12),
  last_done_engine_ms: 0,
  upcoming_notified: false,
  due_notified: false,
  ...over,
});

describe('maintenance due dates', () => {
  it('a month after the 31st is the last day of the next month, at the same local time', () => {
    expect(addMonthsInZone(Date.UTC(2026, 0, 31, 12), 1, 'UTC')).toBe(Date.UTC(2026, 1, 28, 12));
    expect(addMonthsInZone(Date.UTC(2026, 10, 30, 12), 3, 'UTC')).toBe(Date.UTC(2027, 1, 28, 12));
  });

  it('keeps the wall-clock time across DST in the zone, unlike UTC', () => {
    const winter = Date.UTC(2026, 9, 15, 10); // 12:00 in Berlin (CEST, UTC+2)
    expect(addMonthsInZone(winter, 1, 'Europe/Berlin')).toBe(Date.UTC(2026, 10, 15, 11)); // 12:00 CET
    expect(addMonthsInZone(winter, 1, 'UTC')).toBe(Date.UTC(2026, 10, 15, 10));
  });

  it('hours or months, whichever comes first; the lead time makes it upcoming', () => {
    const oil = item({ interval_hours: 100, interval_months: 12, lead_hours: 10 });
    const jan = Date.UTC(2026, 1, 1);
    expect(dueInfo(oil, 89 * HOUR, jan, 'UTC').status).toBe('ok');
    expect(dueInfo(oil, 90 * HOUR, jan, 'UTC').status).toBe('upcoming');
    expect(dueInfo(oil, 100 * HOUR, jan, 'UTC').status).toBe('due');
    expect(dueInfo(oil, 1 * HOUR, Date.UTC(2027, 0, 31, 12), 'UTC')).toMatchObject({
      status: 'due',
      due_engine_hours: 100,
    });
  });
});
