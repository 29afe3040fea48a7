import { describe, expect, it } from 'vitest';
import { ConditionsConfig } from '../src/conditions.js';

const soc = {
  enabled: true,
  start_value: 30,
  start_delay_seconds: 120,
  stop_value: 85,
  stop_delay_seconds: 60,
};

describe('start conditions configuration', () => {
  it('takes a Victron state-of-charge condition and fills the defaults', () => {
    const cfg = ConditionsConfig.parse({
      conditions: { soc },
      sources: { soc: { type: 'victron_gx', portal_id: 'c0619ab1c2d3' } },
    });
    expect(cfg.conditions.soc).toMatchObject({ quiet_start_value: null, quiet_stop_value: null });
    expect(cfg.sources.soc).toMatchObject({
      battery_instance: null,
      vebus_instance: null,
      stale_after_seconds: 300,
    });
    expect(cfg.minimum_run_minutes).toBe(0);
    expect(cfg.quiet_hours).toEqual({ enabled: false, start: '22:00', end: '07:00' });
  });

  it('refuses thresholds without hysteresis, in both directions and in quiet hours', () => {
    const bad = (conditions: unknown, sources: unknown = {}) =>
      ConditionsConfig.safeParse({ conditions, sources }).error?.issues.map((i) => i.path.join('.'));
    expect(bad({ soc: { ...soc, enabled: false, stop_value: 30 } })).toEqual(['conditions.soc.stop_value']);
    expect(bad({ ac_load: { start_value: 3000, stop_value: 4000 } })).toEqual([
      'conditions.ac_load.stop_value',
    ]);
    expect(bad({ soc: { ...soc, enabled: false, quiet_start_value: 20, quiet_stop_value: 15 } })).toEqual([
      'conditions.soc.quiet_stop_value',
    ]);
  });

  it('needs a source for an enabled condition and for keep_off_while_grid', () => {
    const r = ConditionsConfig.safeParse({ conditions: { soc }, keep_off_while_grid: true });
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['sources.soc', 'sources.grid']);
  });

  it('refuses wildcard topics, bad JSON paths and unknown condition names', () => {
    const plain = (extra: object) => ({ sources: { soc: { type: 'mqtt', topic: 'bms/soc', ...extra } } });
    expect(ConditionsConfig.safeParse(plain({ topic: 'bms/+/soc' })).success).toBe(false);
    expect(ConditionsConfig.safeParse(plain({ json_path: 'a..b' })).success).toBe(false);
    expect(ConditionsConfig.safeParse(plain({ scale: 0 })).success).toBe(false);
    expect(ConditionsConfig.safeParse(plain({ json_path: 'data.0.soc' })).success).toBe(true);
    expect(ConditionsConfig.safeParse({ conditions: { fuel: soc } }).success).toBe(false);
  });
});
