import { ConditionsConfig, type ConditionsConfigInput } from '@outpost/contracts/conditions';
import { describe, expect, it } from 'vitest';
import { type HarnessOptions, harness, USER } from '../helpers/harness.js';
import { LOAD_CONDITION, SOC_CONDITION } from '../helpers/condition-fixtures.js';

const S = 1000;
const MIN = 60 * S;
const rest = { type: 'rest', stale_after_seconds: 7200 } as const;
const soc = SOC_CONDITION;
const load = LOAD_CONDITION;

async function withConditions(cfg: ConditionsConfigInput, opts: HarnessOptions = { armed: true }) {
  const h = await harness(opts);
  await h.controller.conditions.configure(ConditionsConfig.parse(cfg));
  const set = (name: Parameters<typeof h.controller.conditions.reading>[0], v: number | null) =>
    h.controller.conditions.reading(name, v);
  return {
    ...h,
    set,
    cond: (name: string) => h.controller.conditions.status().conditions.find((c) => c.name === name),
  };
}

const socOnly = { conditions: { soc }, sources: { soc: rest } };

describe('start conditions', () => {
  it('starts after the state of charge stays below the start value for the delay; a shorter dip does nothing', async () => {
    const h = await withConditions(socOnly);
    await h.set('soc', 28);
    expect(h.cond('soc')).toMatchObject({ state: 'start_pending', countdown_seconds: 120 });
    await h.advance(100 * S);
    await h.set('soc', 31);
    expect(h.cond('soc')?.state).toBe('idle');
    await h.advance(60 * S);
    expect(h.controller.view().running).toBe(false);

    await h.set('soc', 29.5);
    await h.advance(119 * S);
    expect(h.controller.view().running).toBe(false);
    expect(h.cond('soc')?.countdown_seconds).toBe(1);
    await h.advance(1 * S);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'soc' });
    expect(h.repo.runs[0]).toMatchObject({ trigger_type: 'soc', trigger_value: 29.5 });
    expect(h.repo.events()).toContain('generator.started.soc');
  });

  it('stops after the stop value holds for the stop delay, never before the minimum run time', async () => {
    const h = await withConditions({ ...socOnly, minimum_run_minutes: 30 });
    await h.set('soc', 20);
    await h.advance(120 * S);
    expect(h.controller.view().running).toBe(true);
    await h.set('soc', 86);
    await h.advance(60 * S);
    expect(h.cond('soc')?.state).toBe('idle');
    expect(h.controller.conditions.status().minimum_run_remaining_seconds).toBe(29 * 60);
    await h.advance(28 * MIN);
    expect(h.controller.view().running).toBe(true);
    await h.advance(1 * MIN);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'soc', stop_value: 86, duration_seconds: 30 * 60 });
    expect(h.repo.events()).toContain('generator.stopped.soc');
  });

  it('a value between the thresholds neither starts nor stops (hysteresis), and a short rise restarts the stop delay', async () => {
    const h = await withConditions(socOnly);
    await h.set('soc', 25);
    await h.advance(120 * S);
    await h.set('soc', 60);
    await h.advance(30 * MIN);
    expect(h.controller.view().running).toBe(true);
    await h.set('soc', 90);
    await h.advance(30 * S);
    await h.set('soc', 84);
    await h.advance(45 * S);
    expect(h.controller.view().running).toBe(true);
  });

  it('uses the quiet-hours thresholds inside the quiet hours', async () => {
    // 12:00 UTC now; quiet hours 11:00–13:00 with a lower start value.
    const h = await withConditions({
      conditions: { soc: { ...soc, quiet_start_value: 15, quiet_stop_value: 50 } },
      sources: { soc: rest },
      quiet_hours: { enabled: true, start: '11:00', end: '13:00' },
    });
    expect(h.controller.conditions.status().quiet_hours_active).toBe(true);
    await h.set('soc', 20);
    await h.advance(5 * MIN);
    expect(h.controller.view().running).toBe(false);
    expect(h.cond('soc')).toMatchObject({ state: 'idle', start_value: 15 });
    // At 13:00 the ordinary start value (30) applies and 20 % starts after the delay.
    await h.advance(55 * MIN);
    expect(h.controller.conditions.status().quiet_hours_active).toBe(false);
    await h.advance(120 * S);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'soc' });
  });

  it('keeps the generator off while the grid is present, and stops its own run when the grid returns', async () => {
    const h = await withConditions({
      ...socOnly,
      sources: { soc: rest, grid: rest },
      keep_off_while_grid: true,
    });
    await h.set('grid', 1);
    await h.set('soc', 20);
    await h.advance(10 * MIN);
    expect(h.controller.view().running).toBe(false);
    await h.set('grid', 0);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'soc' });
    await h.set('grid', 1);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]?.stop_reason).toBe('grid_present');
  });

  it('a stale or missing source never starts, and going stale raises the warning event', async () => {
    const h = await withConditions({
      conditions: { soc },
      sources: { soc: { ...rest, stale_after_seconds: 60 } },
    });
    await h.advance(5 * MIN);
    expect(h.controller.view().running).toBe(false);
    expect(h.controller.conditions.status().sources[0]?.status).toBe('stale');
    expect(h.repo.events()).toEqual(
      expect.arrayContaining(['condition_source_stale', 'generator.condition.source_stale']),
    );
    await h.set('soc', 10);
    await h.advance(61 * S);
    // The reading aged past stale_after before the start delay ended: unknown restarts the delay.
    expect(h.controller.view().running).toBe(false);
    expect(h.cond('soc')?.state).toBe('unknown');
  });

  it('a run whose source then goes stale keeps running until its runtime limit', async () => {
    const h = await withConditions(
      {
        conditions: { soc: { ...soc, start_delay_seconds: 0 } },
        sources: { soc: { ...rest, stale_after_seconds: 60 } },
      },
      {
        armed: true,
        settings: {
          limits: { runtime_limits_enabled: true, max_run_minutes: 120, lockout_on_max_runtime: false },
        },
      },
    );
    await h.set('soc', 20);
    expect(h.controller.view().running).toBe(true);
    await h.advance(119 * MIN);
    expect(h.controller.view().running).toBe(true);
    expect(h.cond('soc')?.state).toBe('active');
    await h.advance(1 * MIN);
    expect(h.repo.runs[0]?.stop_reason).toBe('max_runtime');
  });

  it.each([
    ['disarmed', { armed: false }, 'not_armed'],
    ['force_stop', { armed: true, state: { override_type: 'force_stop' as const } }, 'force_stop'],
    ['lockout', { armed: true, state: { lockout_active: true } }, 'lockout'],
  ])('%s blocks a condition start as it blocks the input signal', async (_label, opts, code) => {
    const h = await withConditions(
      { conditions: { soc: { ...soc, start_delay_seconds: 0 } }, sources: { soc: rest } },
      opts,
    );
    await h.set('soc', 20);
    expect(h.controller.view().running).toBe(false);
    await h.controller.setBmsSignal(true);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.audit.filter((a) => a.action === 'generator.start_refused').map((a) => a.who)).toEqual([
      'conditions',
      'bms',
    ]);
    expect(h.repo.audit.find((a) => a.who === 'conditions')?.details).toMatchObject({ code });
  });

  it('HOA Quiet and EPO block a condition start; it starts once they clear', async () => {
    const h = await withConditions({
      conditions: { soc: { ...soc, start_delay_seconds: 0 } },
      sources: { soc: rest },
    });
    await h.controller.setHoaPosition('quiet');
    await h.set('soc', 20);
    expect(h.controller.view().running).toBe(false);
    await h.controller.relayReported({ physical_safety_engaged: true });
    await h.controller.setHoaPosition('auto');
    expect(h.controller.view().running).toBe(false);
    await h.controller.relayReported({ physical_safety_engaged: false });
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'soc' });
  });

  it('two conditions: either starts, the run stops only when both met their stop values', async () => {
    const h = await withConditions({
      conditions: { soc, ac_load: load },
      sources: { soc: rest, ac_load: rest },
    });
    await h.set('soc', 50);
    await h.set('ac_load', 3500);
    await h.advance(10 * S);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'ac_load' });
    await h.set('soc', 20);
    await h.advance(120 * S);
    expect(h.cond('soc')?.state).toBe('active');
    await h.set('ac_load', 500);
    await h.advance(30 * S);
    expect(h.cond('ac_load')?.state).toBe('idle');
    expect(h.controller.view().running).toBe(true);
    await h.set('soc', 90);
    await h.advance(60 * S);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({ trigger_type: 'ac_load', stop_reason: 'soc', stop_value: 90 });
  });

  it('stops only what it started, and a manual stop waits for the conditions to release', async () => {
    const h = await withConditions({
      conditions: { soc: { ...soc, start_delay_seconds: 0 } },
      sources: { soc: rest },
    });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.set('soc', 95);
    await h.advance(5 * MIN);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'manual' });
    await h.controller.stop('manual', USER);
    await h.set('soc', 20);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'soc' });
    await h.controller.stop('manual', USER);
    await h.advance(10 * MIN);
    expect(h.controller.view().running).toBe(false);
    await h.set('soc', 90);
    await h.advance(60 * S);
    await h.set('soc', 20);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'soc' });
  });

  it('with the selector at Run the values, countdowns and stale warnings still follow', async () => {
    const h = await withConditions({
      conditions: { soc },
      sources: { soc: { ...rest, stale_after_seconds: 60 } },
    });
    await h.controller.setHoaPosition('run');
    await h.set('soc', 25);
    expect(h.cond('soc')).toMatchObject({ state: 'start_pending', value: 25 });
    await h.advance(61 * S);
    expect(h.controller.conditions.status().sources[0]?.status).toBe('stale');
    expect(h.repo.events()).toContain('condition_source_stale');
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'manual' });
  });

  it('after max runtime the cooldown holds a condition off, then it starts again', async () => {
    const h = await withConditions(
      { conditions: { soc: { ...soc, start_delay_seconds: 0 } }, sources: { soc: rest } },
      {
        armed: true,
        settings: {
          limits: {
            runtime_limits_enabled: true,
            max_run_minutes: 60,
            cooldown_minutes: 30,
            lockout_on_max_runtime: false,
          },
        },
      },
    );
    await h.set('soc', 20);
    await h.advance(60 * MIN);
    expect(h.repo.runs[0]?.stop_reason).toBe('max_runtime');
    await h.set('soc', 19);
    await h.advance(29 * MIN);
    expect(h.controller.view().running).toBe(false);
    await h.advance(1 * MIN);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'soc' });
  });
});
