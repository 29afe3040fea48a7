import { NOTIFICATION_EVENTS } from '@outpost/contracts';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TEMPLATES,
  eventVariables,
  formatDuration,
  formatTime,
  render,
  TEMPLATE_VARIABLES,
  unknownVariables,
} from '../src/domain/templates.js';

describe('templates', () => {
  it('renders every variable of the spec from generator and system event data', () => {
    const vars = eventVariables(
      {
        run_id: 42,
        start_time: 1767225600,
        stop_time: 1767229323,
        runtime: 3723,
        reason: 'bms',
        fuel_gallons: 2.4,
        fuel_type: 'lpg',
        status: 'connected',
        details: 'relay node connected',
      },
      1767230000,
    );
    const all = TEMPLATE_VARIABLES.map((v) => `${v}={{${v}}}`).join(' | ');
    expect(render(all, vars)).toBe(
      'run_id=42 | start_time=2026-01-01 00:00:00 UTC | stop_time=2026-01-01 01:02:03 UTC | runtime=1h 02m 03s | ' +
        'reason=bms | fuel_gallons=2.40 | fuel_type=lpg | timestamp=2026-01-01 01:13:20 UTC | status=connected | ' +
        'details=relay node connected',
    );
  });

  it('fills absent values with n/a and tolerates spaces inside braces', () => {
    expect(render('{{ run_id }}/{{stop_time}}', eventVariables({}, 0))).toBe('n/a/n/a');
  });

  it('names unknown variables', () => {
    expect(unknownVariables('{{run_id}} {{oops}} {{ nope }}')).toEqual(['oops', 'nope']);
    expect(unknownVariables('{{run_id}} {{details}}')).toEqual([]);
  });

  it('formats durations and times', () => {
    expect(formatDuration(42)).toBe('42s');
    expect(formatDuration(303)).toBe('5m 03s');
    expect(formatDuration(3600)).toBe('1h 00m 00s');
    expect(formatTime(1767225600000)).toBe('2026-01-01 00:00:00 UTC');
  });

  it('has a default for every event, using only known variables', () => {
    for (const e of NOTIFICATION_EVENTS) {
      const t = DEFAULT_TEMPLATES[e];
      expect(t.title.length, e).toBeGreaterThan(0);
      expect(unknownVariables(t.title + t.body), e).toEqual([]);
    }
  });
});
