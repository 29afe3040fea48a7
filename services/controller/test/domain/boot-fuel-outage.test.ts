import { describe, expect, it } from 'vitest';
import { bootReset } from '../../src/domain/boot-reset.js';
import { estimateFuel, rateFor } from '../../src/domain/fuel.js';
import { INITIAL_STATE } from '../../src/domain/types.js';
import { harness, USER } from '../helpers/harness.js';
import { MemoryRepo } from '../helpers/memory-repo.js';

const MIN = 60_000;

describe('controller boot reset table', () => {
  it('always: slave_connection_status = unknown and missed_heartbeat_count = 0', async () => {
    const h = await harness({ state: { slave_connection_status: 'connected', missed_heartbeat_count: 4 } });
    expect(h.repo.state).toMatchObject({ slave_connection_status: 'unknown', missed_heartbeat_count: 0 });
  });

  it('fail_safe and armed before boot: slave_relay_armed = false, manual_disarm_active = true', () => {
    const r = bootReset({ ...INITIAL_STATE, slave_relay_armed: true }, 'fail_safe', 0);
    expect(r.state).toMatchObject({ slave_relay_armed: false, manual_disarm_active: true });
    expect(r.relayDisarmedByPolicy).toBe(true);
  });

  it('fail_safe and disarmed before boot: nothing to disarm, no manual_disarm_active', () => {
    const r = bootReset({ ...INITIAL_STATE }, 'fail_safe', 0);
    expect(r.state.manual_disarm_active).toBe(false);
    expect(r.relayDisarmedByPolicy).toBe(false);
  });

  it('preserve_state and armed: stays armed', () => {
    const r = bootReset({ ...INITIAL_STATE, slave_relay_armed: true }, 'preserve_state', 0);
    expect(r.state).toMatchObject({ slave_relay_armed: true, manual_disarm_active: false });
  });

  for (const policy of ['fail_safe', 'preserve_state'] as const) {
    it(`generator was running (${policy}): reset to idle and the orphaned run is closed`, async () => {
      const first = await harness({ armed: true, policy });
      await first.controller.start({ trigger: 'manual', actor: USER, duration_minutes: 120 });
      await first.advance(3 * MIN); // the last-alive stamp lands at +1, +2, +3 min
      first.controller.shutdown();
      await first.advance(10 * MIN); // the controller was down for 10 minutes
      const h = await harness({ repo: first.repo, clock: first.clock, policy });
      expect(h.repo.state).toMatchObject({
        generator_running: false,
        run_trigger: 'idle',
        generator_start_time: null,
        current_run_id: null,
        scheduled_stop_at: null,
      });
      expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'error', duration_seconds: 180 });
      expect(h.boot).toMatchObject({
        boot_arming_policy: policy,
        was_running: true,
        orphan_runs_closed: [1],
      });
      expect(h.relay.commands).toEqual([false]);
      // No stale auto-stop fires after the restart.
      await h.advance(200 * MIN);
      expect(h.repo.runs).toHaveLength(1);
    });
  }

  it('SYSTEM_BOOT_RESET is logged each boot with boot_arming_policy and relay_disarmed_by_policy', async () => {
    const h = await harness({ state: { slave_relay_armed: true }, policy: 'fail_safe' });
    const entry = h.repo.audit.find((a) => a.action === 'SYSTEM_BOOT_RESET');
    expect(entry?.details).toMatchObject({ boot_arming_policy: 'fail_safe', relay_disarmed_by_policy: true });
    const log = h.logger.entries.find((e) => e.msg === 'SYSTEM_BOOT_RESET');
    expect(log?.level).toBe('warn');
    const calm = await harness({ policy: 'preserve_state' });
    expect(calm.logger.entries.find((e) => e.msg === 'SYSTEM_BOOT_RESET')?.level).toBe('info');
  });

  it('the stored boot_arming_policy applies when the environment sets none', async () => {
    const h = await harness({
      state: { slave_relay_armed: true },
      settings: { boot_arming_policy: 'preserve_state' },
    });
    expect(h.boot.boot_arming_policy).toBe('preserve_state');
    expect(h.controller.view().armed).toBe(true);
  });
});

describe('fuel estimation', () => {
  it('uses (runtime_seconds / 3600) x the rate of the expected load', () => {
    const fuel = {
      fuel_type: 'diesel' as const,
      expected_load: 100 as const,
      gph_at_50: 0.8,
      gph_at_100: 1.5,
    };
    expect(rateFor(fuel)).toBe(1.5);
    expect(rateFor({ ...fuel, expected_load: 50 })).toBe(0.8);
    expect(estimateFuel(5400, 1.5)).toBe(2.25);
    expect(estimateFuel(0, 1.5)).toBe(0);
  });

  it('takes the rate at start: a load change mid-run does not alter the run estimate', async () => {
    const h = await harness({
      armed: true,
      settings: { fuel: { fuel_type: 'lpg', expected_load: 50, gph_at_50: 1, gph_at_100: 2 } },
    });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.updateSettings({ fuel: { expected_load: 100 } }, USER);
    await h.advance(90 * MIN);
    await h.controller.stop('manual', USER);
    expect(h.repo.runs[0]).toMatchObject({
      fuel_type_at_run: 'lpg',
      load_at_run: 50,
      estimated_fuel_used: 1.5,
    });
    expect(h.repo.outbox.find((e) => e.event === 'generator_stopped')?.data).toMatchObject({
      fuel_gallons: 1.5,
      fuel_type: 'lpg',
    });
  });
});

describe('relay OFF always works', () => {
  it('with the database down a stop still commands the relay OFF and answers; the record lands later', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(10 * MIN);
    h.repo.down = true;
    const out = await h.controller.stop('manual', USER);
    expect(out).toMatchObject({ run_id: 1, duration_seconds: 600, stop_reason: 'manual' });
    expect(h.relay.last).toBe(false);
    expect(h.controller.desired().relay_on).toBe(false);
    expect(h.repo.runs[0]?.stop_time).toBeNull();
    expect(h.controller.pendingWrites).toBeGreaterThan(0);
    h.repo.down = false;
    await h.advance(5000);
    expect(h.controller.pendingWrites).toBe(0);
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'manual', duration_seconds: 600 });
    expect(h.repo.state?.generator_running).toBe(false);
    expect(h.repo.events()).toContain('generator.stopped.manual');
  });

  it('with the database down a start is refused and the relay stays OFF', async () => {
    const h = await harness({ armed: true });
    h.repo.down = true;
    await expect(h.controller.start({ trigger: 'manual', actor: USER })).rejects.toMatchObject({
      code: 'db_unavailable',
    });
    expect(h.relay.commands.includes(true)).toBe(false);
    expect(h.controller.view().state).toBe('idle');
  });

  it('a boot against an empty database starts idle, disarmed, with default settings stored', async () => {
    const repo = new MemoryRepo();
    const h = await harness({ repo });
    expect(h.controller.view()).toMatchObject({ running: false, armed: false, state: 'idle' });
    expect(repo.settings?.limits).toEqual({
      runtime_limits_enabled: false,
      max_run_minutes: 480,
      cooldown_minutes: 60,
      lockout_on_max_runtime: true,
    });
  });
});
