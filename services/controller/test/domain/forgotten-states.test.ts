import { describe, expect, it } from 'vitest';
import { harness, USER } from '../helpers/harness.js';

const HOUR = 3_600_000;
const count = (events: string[], name: string) => events.filter((e) => e === name).length;

describe('reminders for forgotten states', () => {
  it('automation disarmed for DISARMED_REMINDER_HOURS notifies, then once a day; arming ends it', async () => {
    const h = await harness({ armed: true, config: { disarmedReminderHours: 24 } });
    await h.controller.disarm(USER);
    await h.advance(23 * HOUR);
    expect(h.repo.events()).not.toContain('disarmed_reminder');
    await h.advance(1 * HOUR);
    expect(count(h.repo.events(), 'disarmed_reminder')).toBe(1);
    expect(count(h.repo.events(), 'generator.reminder.disarmed')).toBe(1);
    expect(h.repo.outbox.find((e) => e.event === 'disarmed_reminder')?.data).toMatchObject({ hours: 24 });
    await h.advance(23 * HOUR);
    expect(count(h.repo.events(), 'disarmed_reminder')).toBe(1);
    await h.advance(1 * HOUR);
    expect(count(h.repo.events(), 'disarmed_reminder')).toBe(2);
    await h.controller.arm(USER);
    await h.advance(72 * HOUR);
    expect(count(h.repo.events(), 'disarmed_reminder')).toBe(2);
  });

  it('a restart keeps counting from the disarm, not from the boot', async () => {
    const first = await harness({
      armed: true,
      policy: 'preserve_state',
      config: { disarmedReminderHours: 24 },
    });
    await first.controller.disarm(USER);
    const disarmedAt = first.clock.now();
    await first.advance(20 * HOUR);
    first.controller.shutdown();
    const again = await harness({
      repo: first.repo,
      clock: first.clock,
      policy: 'preserve_state',
      config: { disarmedReminderHours: 24 },
    });
    await again.advance(4 * HOUR);
    expect(count(again.repo.events(), 'disarmed_reminder')).toBe(1);
    expect(again.repo.outbox.find((e) => e.event === 'disarmed_reminder')?.data).toMatchObject({
      hours: 24,
      since: Math.floor(disarmedAt / 1000),
    });
    // Disarming again while disarmed does not restart the count.
    await again.controller.disarm(USER);
    await again.advance(24 * HOUR);
    expect(count(again.repo.events(), 'disarmed_reminder')).toBe(2);
  });

  it('the fail_safe boot disarm counts from the boot that disarmed', async () => {
    const first = await harness({ armed: true, config: { disarmedReminderHours: 24 } });
    await first.advance(50 * HOUR);
    first.controller.shutdown();
    const bootAt = first.clock.now();
    const again = await harness({
      repo: first.repo,
      clock: first.clock,
      config: { disarmedReminderHours: 24 },
    });
    expect(again.repo.state?.automation_disarmed_at).toBe(bootAt);
    await again.advance(23 * HOUR);
    expect(again.repo.events()).not.toContain('disarmed_reminder');
    await again.advance(1 * HOUR);
    expect(count(again.repo.events(), 'disarmed_reminder')).toBe(1);
  });

  it('an override left on is reminded the same way', async () => {
    const h = await harness({ armed: true, config: { disarmedReminderHours: 2 } });
    await h.controller.enableOverride('force_stop', USER);
    await h.advance(2 * HOUR);
    expect(count(h.repo.events(), 'override_reminder')).toBe(1);
    await h.advance(24 * HOUR);
    expect(count(h.repo.events(), 'override_reminder')).toBe(2);
    await h.controller.disableOverride(USER);
    await h.advance(48 * HOUR);
    expect(count(h.repo.events(), 'override_reminder')).toBe(2);
  });

  it('DISARMED_REMINDER_HOURS=0 turns them off', async () => {
    const h = await harness({ config: { disarmedReminderHours: 0 } });
    await h.controller.enableOverride('force_stop', USER);
    await h.advance(100 * HOUR);
    expect(h.repo.events().filter((e) => e.endsWith('_reminder'))).toEqual([]);
  });
});
