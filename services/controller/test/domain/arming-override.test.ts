import { describe, expect, it } from 'vitest';
import { harness, USER } from '../helpers/harness.js';

describe('arming table', () => {
  it('disarmed: an automatic start is refused', async () => {
    const h = await harness();
    await h.controller.setBmsSignal(true);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.audit.some((a) => a.action === 'generator.start_refused')).toBe(true);
  });

  it('disarmed: a manual start is refused with "Cannot start - automation is not armed"', async () => {
    const h = await harness();
    await expect(h.controller.start({ trigger: 'manual', actor: USER })).rejects.toThrow(
      'Cannot start - automation is not armed',
    );
    expect(h.repo.state?.generator_running).toBe(false);
    expect(h.relay.commands.includes(true)).toBe(false);
  });

  it('disarmed: stop is allowed and commands the relay OFF', async () => {
    const h = await harness();
    const out = await h.controller.stop('manual', USER);
    expect(out.was_running).toBe(false);
    expect(h.relay.last).toBe(false);
  });

  it('armed: automatic start, manual start and stop are allowed', async () => {
    const h = await harness({ armed: true });
    await h.controller.setBmsSignal(true);
    expect(h.controller.view().trigger).toBe('bms');
    await h.controller.stop('manual', USER);
    await h.controller.start({ trigger: 'manual', actor: USER });
    expect(h.controller.view().trigger).toBe('manual');
  });

  it('Disarmed → Armed on arm, Armed → Disarmed on disarm; the relay node is told', async () => {
    const h = await harness();
    await h.controller.arm(USER);
    expect(h.controller.view()).toMatchObject({
      armed: true,
      automation_armed: true,
      manual_disarm_active: false,
    });
    await h.controller.disarm(USER);
    expect(h.controller.view().armed).toBe(false);
    expect(h.relay.armed.slice(-2)).toEqual([true, false]);
    expect(h.repo.audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['generator.arm', 'generator.disarm']),
    );
  });

  it('Armed → Disarmed at boot under fail_safe, manual_disarm_active and boot_disarmed_failsafe', async () => {
    const h = await harness({
      state: { slave_relay_armed: true, automation_armed: true },
      policy: 'fail_safe',
    });
    expect(h.controller.view()).toMatchObject({ armed: false, manual_disarm_active: true });
    expect(h.repo.events()).toContain('boot_disarmed_failsafe');
    expect(h.relay.armed).toEqual([false]);
  });

  it('Armed stays Armed at boot under preserve_state', async () => {
    const h = await harness({
      state: { slave_relay_armed: true, automation_armed: true },
      policy: 'preserve_state',
    });
    expect(h.controller.view()).toMatchObject({ armed: true, manual_disarm_active: false });
    expect(h.repo.events()).not.toContain('boot_disarmed_failsafe');
    expect(h.relay.armed).toEqual([true]);
  });
});

describe('override table', () => {
  it('none → force_run on enable; force_run → none on disable; events and audit', async () => {
    const h = await harness({ armed: true });
    await h.controller.enableOverride('force_run', USER);
    expect(h.controller.view().override).toBe('force_run');
    await h.controller.disableOverride(USER);
    expect(h.controller.view().override).toBeNull();
    expect(h.repo.events()).toEqual(expect.arrayContaining(['override_enabled', 'override_disabled']));
  });

  it('none → force_stop on enable; force_stop → none on disable', async () => {
    const h = await harness({ armed: true });
    await h.controller.enableOverride('force_stop', USER);
    expect(h.repo.state?.override_type).toBe('force_stop');
    await h.controller.disableOverride(USER);
    expect(h.repo.state?.override_type).toBeNull();
  });

  it('an override persists until disabled, across a controller restart', async () => {
    const h = await harness({ armed: true });
    await h.controller.enableOverride('force_stop', USER);
    h.controller.shutdown();
    const again = await harness({ repo: h.repo, clock: h.clock });
    expect(again.controller.view().override).toBe('force_stop');
  });

  it('force_run keeps the generator running and ignores the inactive input signal', async () => {
    const h = await harness({ armed: true });
    await h.controller.setBmsSignal(true);
    await h.controller.enableOverride('force_run', USER);
    await h.controller.setBmsSignal(false);
    expect(h.controller.view().running).toBe(true);
    await h.controller.disableOverride(USER);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]?.stop_reason).toBe('bms');
  });

  it('force_stop blocks input-signal starts; manual and scheduled starts still work', async () => {
    const h = await harness({ armed: true });
    await h.controller.enableOverride('force_stop', USER);
    await h.controller.setBmsSignal(true);
    expect(h.controller.view().running).toBe(false);
    await h.controller.start({ trigger: 'manual', actor: USER });
    expect(h.controller.view().trigger).toBe('manual');
    await h.controller.stop('manual', USER);
    await h.controller.start({ trigger: 'scheduled', actor: USER, duration_minutes: 5 });
    expect(h.controller.view().trigger).toBe('scheduled');
  });

  it('enabling force_stop while running stops the run with reason override', async () => {
    const h = await harness({ armed: true });
    await h.controller.setBmsSignal(true);
    await h.controller.enableOverride('force_stop', USER);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]?.stop_reason).toBe('override');
    await h.controller.disableOverride(USER);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'bms' });
  });

  it('a manual stop while the signal is still HIGH does not auto-restart until the signal cycles', async () => {
    const h = await harness({ armed: true });
    await h.controller.setBmsSignal(true);
    await h.controller.stop('manual', USER);
    expect(h.controller.view().running).toBe(false);
    await h.controller.setBmsSignal(false);
    await h.controller.setBmsSignal(true);
    expect(h.controller.view().running).toBe(true);
  });
});
