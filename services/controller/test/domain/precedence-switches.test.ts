import { describe, expect, it } from 'vitest';
import { contactsFor } from '../../src/inputs/gpio-port.js';
import { InputBridge } from '../../src/inputs/inputs.js';
import { MockGpio } from '../../src/inputs/mock-gpio.js';
import { harness, USER } from '../helpers/harness.js';

const MIN = 60_000;

describe('decision precedence', () => {
  it('1. EPO beats everything: every start path is refused, HOA Run included', async () => {
    const h = await harness({ armed: true });
    await h.controller.relayReported({ physical_safety_engaged: true });
    for (const trigger of ['manual', 'scheduled', 'exercise'] as const) {
      await expect(h.controller.start({ trigger, actor: USER, duration_minutes: 5 })).rejects.toMatchObject({
        code: 'epo',
      });
    }
    await h.controller.setBmsSignal(true);
    await h.controller.setHoaPosition('run');
    expect(h.controller.view().running).toBe(false);
  });

  it('2. HOA Run holds the generator on even when disarmed, in Quiet terms, locked out or with the signal LOW', async () => {
    const h = await harness({ state: { lockout_active: true } });
    await h.controller.setHoaPosition('run');
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'manual', armed: false });
    expect(h.controller.desired()).toEqual({ armed: true, relay_on: true });
    await h.controller.setHoaPosition('auto');
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]?.stop_reason).toBe('manual');
  });

  it('2b. HOA Run keeps a signal-started run going after the signal falls and past max runtime', async () => {
    const h = await harness({
      armed: true,
      settings: { limits: { runtime_limits_enabled: true, max_run_minutes: 30 } },
    });
    await h.controller.setBmsSignal(true);
    await h.controller.setHoaPosition('run');
    await h.controller.setBmsSignal(false);
    await h.advance(60 * MIN);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'bms' });
  });

  it('3. the Quiet override lifts the HOA Quiet gate for automation', async () => {
    const h = await harness({ armed: true });
    await h.controller.setHoaPosition('quiet');
    await h.controller.setBmsSignal(true);
    expect(h.controller.view().running).toBe(false);
    await h.controller.enableQuietOverride(60, USER);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'bms', quiet_override_active: true });
  });

  it('4. HOA Quiet refuses bms, scheduled and exercise starts; manual web starts bypass it', async () => {
    const h = await harness({ armed: true });
    await h.controller.setHoaPosition('quiet');
    for (const trigger of ['scheduled', 'exercise'] as const) {
      await expect(h.controller.start({ trigger, actor: USER, duration_minutes: 5 })).rejects.toMatchObject({
        code: 'quiet',
      });
    }
    await h.controller.setBmsSignal(true);
    expect(h.controller.view().running).toBe(false);
    await h.controller.start({ trigger: 'manual', actor: USER });
    expect(h.controller.view().trigger).toBe('manual');
  });

  it('5. arming, runtime lockout and cooldown gate the input signal; the signal starts when they clear', async () => {
    const h = await harness();
    await h.controller.setBmsSignal(true);
    expect(h.controller.view().running).toBe(false);
    await h.controller.arm(USER);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'bms' });
  });

  it('6. Quiet is above arming: a disarmed controller in Quiet reports the Quiet refusal first', async () => {
    const h = await harness();
    await h.controller.setHoaPosition('quiet');
    expect(h.controller.checkStart('bms')?.code).toBe('quiet');
    expect(h.controller.checkStart('manual')?.code).toBe('not_armed');
  });
});

describe('hardware switches', () => {
  it('EPO released → engaged: the run is dropped, the flag is set, the notification is queued', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.relayReported({ physical_safety_engaged: true });
    expect(h.controller.view()).toMatchObject({ running: false, slave_physical_safety_engaged: true });
    expect(h.relay.last).toBe(false);
    expect(h.repo.events()).toContain('hardware_safety_engaged_relaynode');
    await expect(h.controller.start({ trigger: 'manual', actor: USER })).rejects.toThrow(/EPO/);
  });

  it('EPO engaged → released: flag cleared, notification, and a still-active signal starts at once', async () => {
    const h = await harness({ armed: true });
    await h.controller.relayReported({ physical_safety_engaged: true });
    await h.controller.setBmsSignal(true);
    expect(h.controller.view().running).toBe(false);
    await h.controller.relayReported({ physical_safety_engaged: false });
    expect(h.repo.events()).toContain('hardware_safety_released_relaynode');
    expect(h.controller.view()).toMatchObject({
      running: true,
      trigger: 'bms',
      slave_physical_safety_engaged: false,
    });
  });

  it('HOA Fault (both contacts) is reported as fault and treated as Auto', async () => {
    const h = await harness({ armed: true });
    await h.controller.setHoaPosition('fault');
    await h.controller.setBmsSignal(true);
    expect(h.controller.view()).toMatchObject({ hoa_position: 'fault', running: true, trigger: 'bms' });
  });

  it('Quiet override clears on expiry', async () => {
    const h = await harness({ armed: true });
    await h.controller.setHoaPosition('quiet');
    await h.controller.enableQuietOverride(30, USER);
    await h.advance(29 * MIN);
    expect(h.controller.view().quiet_override_active).toBe(true);
    await h.advance(1 * MIN);
    expect(h.controller.view()).toMatchObject({
      quiet_override_active: false,
      quiet_override_expires_at: null,
    });
  });

  it('Quiet override clears on cancel', async () => {
    const h = await harness({ armed: true });
    await h.controller.setHoaPosition('quiet');
    await h.controller.enableQuietOverride(30, USER);
    await h.controller.cancelQuietOverride(USER);
    expect(h.repo.state?.quiet_override_active).toBe(false);
  });

  it('Quiet override clears when the selector leaves Quiet', async () => {
    const h = await harness({ armed: true });
    await h.controller.setHoaPosition('quiet');
    await h.controller.enableQuietOverride(30, USER);
    await h.controller.setHoaPosition('auto');
    expect(h.repo.state?.quiet_override_active).toBe(false);
  });

  it('Quiet override survives a controller restart and still expires on time', async () => {
    const h = await harness({ armed: true });
    await h.controller.setHoaPosition('quiet');
    await h.controller.enableQuietOverride(30, USER);
    h.controller.shutdown();
    await h.advance(10 * MIN);
    const again = await harness({ repo: h.repo, clock: h.clock, policy: 'preserve_state' });
    await again.controller.setHoaPosition('quiet');
    expect(again.controller.view().quiet_override_active).toBe(true);
    await again.advance(20 * MIN);
    expect(again.controller.view().quiet_override_active).toBe(false);
  });

  it.each([
    ['auto', false],
    ['run', false],
    ['quiet', true],
  ] as const)(
    'a Quiet override kept over a restart with the selector now at %s: kept = %s',
    async (position, kept) => {
      const h = await harness({ armed: true });
      await h.controller.setHoaPosition('quiet');
      await h.controller.enableQuietOverride(60, USER);
      h.controller.shutdown();
      await h.advance(5 * MIN);
      const again = await harness({ repo: h.repo, clock: h.clock, policy: 'preserve_state' });
      const gpio = new MockGpio();
      const c = contactsFor(position);
      gpio.set('hoa_quiet', c.hoa_quiet);
      gpio.set('hoa_run', c.hoa_run);
      await new InputBridge(gpio, again.controller, { hoaEnabled: true, logger: again.logger }).start();
      expect(again.controller.view().quiet_override_active).toBe(kept);
      expect(again.repo.state?.quiet_override_active).toBe(kept);
      expect(again.repo.events().includes('quiet_override_cleared')).toBe(!kept);
      if (position === 'auto') {
        // The selector went back to Quiet later: the gate is in force again, no override to bypass it.
        await again.controller.setHoaPosition('quiet');
        await again.controller.setBmsSignal(true);
        expect(again.controller.view().running).toBe(false);
      }
    },
  );

  it('Quiet override is refused unless the selector is at Quiet', async () => {
    const h = await harness({ armed: true });
    await expect(h.controller.enableQuietOverride(30, USER)).rejects.toMatchObject({ code: 'not_quiet' });
  });

  it('during HOA_BOOT_DELAY_SECONDS a Quiet or Run position raises no state-change notification', async () => {
    const h = await harness({ hoaBootDelaySeconds: 30 });
    await h.controller.setHoaPosition('quiet');
    expect(h.repo.events()).not.toContain('hoa_position_changed');
    await h.controller.setHoaPosition('auto');
    await h.advance(31_000);
    await h.controller.setHoaPosition('quiet');
    expect(h.repo.events().filter((e) => e === 'hoa_position_changed')).toHaveLength(2);
    // The same change goes to webhooks under its generator.* name, with the boot delay kept too.
    expect(h.repo.events().filter((e) => e === 'generator.hoa_position_changed')).toHaveLength(2);
  });

  it('the input signal debounce (ms) ignores a glitch shorter than the setting', async () => {
    const h = await harness({ armed: true, settings: { bms_debounce_ms: 2000 } });
    await h.controller.setBmsSignal(true);
    await h.advance(500);
    await h.controller.setBmsSignal(false);
    await h.advance(5000);
    expect(h.controller.view().running).toBe(false);
    await h.controller.setBmsSignal(true);
    await h.advance(2000);
    expect(h.controller.view().running).toBe(true);
  });
});
