import { describe, expect, it } from 'vitest';
import { harness, USER } from '../helpers/harness.js';

const MIN = 60_000;

describe('runtime limit, lockout, cooldown', () => {
  it('1. limits do not apply while runtime_limits_enabled is false', async () => {
    const h = await harness({
      armed: true,
      settings: { limits: { runtime_limits_enabled: false, max_run_minutes: 10 } },
    });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(600 * MIN);
    expect(h.controller.view().running).toBe(true);
  });

  it('2. at max_run_minutes the generator stops with reason max_runtime (default 480)', async () => {
    const h = await harness({ armed: true, settings: { limits: { runtime_limits_enabled: true } } });
    await h.controller.setBmsSignal(true);
    await h.advance(479 * MIN);
    expect(h.controller.view().running).toBe(true);
    await h.advance(1 * MIN);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'max_runtime', duration_seconds: 480 * 60 });
    expect(h.repo.events()).toEqual(
      expect.arrayContaining(['generator.stopped.max_runtime', 'max_runtime_reached']),
    );
  });

  it('3. with lockout_on_max_runtime a lockout blocks every restart until clear-lockout is acknowledged', async () => {
    const h = await harness({
      armed: true,
      settings: { limits: { runtime_limits_enabled: true, max_run_minutes: 60 } },
    });
    await h.controller.setBmsSignal(true);
    await h.advance(60 * MIN);
    expect(h.controller.view()).toMatchObject({ running: false, lockout_active: true });
    expect(h.repo.events()).toContain('lockout_activated');
    await expect(h.controller.start({ trigger: 'manual', actor: USER })).rejects.toMatchObject({
      code: 'lockout',
    });
    await h.advance(24 * 60 * MIN);
    expect(h.controller.view().running).toBe(false);
    expect(await h.controller.clearLockout(USER)).toEqual({ cleared: true });
    expect(h.repo.events()).toContain('lockout_cleared');
    // The signal is still HIGH: the generator starts on the next state-machine tick.
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'bms', lockout_active: false });
  });

  it('4. with only the cooldown, automatic restarts wait cooldown_minutes; manual starts bypass it', async () => {
    const h = await harness({
      armed: true,
      settings: {
        limits: {
          runtime_limits_enabled: true,
          max_run_minutes: 60,
          cooldown_minutes: 30,
          lockout_on_max_runtime: false,
        },
      },
    });
    await h.controller.setBmsSignal(true);
    await h.advance(60 * MIN);
    expect(h.controller.view()).toMatchObject({
      running: false,
      lockout_active: false,
      cooldown_active: true,
      cooldown_remaining_seconds: 1800,
    });
    await h.advance(29 * MIN);
    expect(h.controller.view().running).toBe(false);
    await h.advance(1 * MIN);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'bms', cooldown_active: false });
  });

  it('4b. a manual start during the cooldown is allowed', async () => {
    const h = await harness({
      armed: true,
      settings: {
        limits: {
          runtime_limits_enabled: true,
          max_run_minutes: 60,
          cooldown_minutes: 30,
          lockout_on_max_runtime: false,
        },
      },
    });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(60 * MIN);
    await expect(
      h.controller.start({ trigger: 'scheduled', actor: USER, duration_minutes: 5 }),
    ).rejects.toMatchObject({ code: 'cooldown' });
    const out = await h.controller.start({ trigger: 'manual', actor: USER });
    expect(out.trigger).toBe('manual');
  });

  it('enabling limits mid-run past the maximum stops the run at once', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(90 * MIN);
    await h.controller.updateSettings(
      { limits: { runtime_limits_enabled: true, max_run_minutes: 60 } },
      USER,
    );
    await h.advance(0);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]?.stop_reason).toBe('max_runtime');
  });

  it('clear-lockout without an active lockout changes nothing', async () => {
    const h = await harness({ armed: true });
    expect(await h.controller.clearLockout(USER)).toEqual({ cleared: false });
    expect(h.repo.events()).not.toContain('lockout_cleared');
  });
});
