import { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { nextReboot, scheduleMatches } from '../../src/domain/reboot-schedule.js';
import { startTestNode } from '../service-helpers.js';

/** Local time, like the schedule. 2026-06-01 is a Monday. */
const local = (d: number, h: number, m: number, s = 0, ms = 0) => new Date(2026, 5, d, h, m, s, ms).getTime();
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('reboot schedule times (croner, local time)', () => {
  it('computes the next scheduled minute from any instant', () => {
    const daily = { enabled: true, day: 'daily' as const, hour: 3, minute: 30 };
    expect(nextReboot(daily, new Date(local(1, 10, 0)))?.getTime()).toBe(local(2, 3, 30));
    expect(nextReboot(daily, new Date(local(2, 3, 29, 59)))?.getTime()).toBe(local(2, 3, 30));
    // Strictly after: the minute itself is not its own next run.
    expect(nextReboot(daily, new Date(local(2, 3, 30)))?.getTime()).toBe(local(3, 3, 30));
    const sunday = { enabled: true, day: 'sunday' as const, hour: 4, minute: 15 };
    expect(nextReboot(sunday, new Date(local(1, 10, 0)))?.getTime()).toBe(local(7, 4, 15));
    expect(nextReboot({ ...sunday, enabled: false }, new Date(local(1, 10, 0)))).toBeNull();
  });

  it('matches any second of the scheduled minute, and nothing else', () => {
    const s = { enabled: true, day: 'monday' as const, hour: 3, minute: 30 };
    expect(scheduleMatches(s, new Date(local(1, 3, 30, 0)))).toBe(true);
    expect(scheduleMatches(s, new Date(local(1, 3, 30, 59, 999)))).toBe(true);
    expect(scheduleMatches(s, new Date(local(1, 3, 31, 0)))).toBe(false);
    expect(scheduleMatches(s, new Date(local(8, 3, 30, 10)))).toBe(true);
    expect(scheduleMatches(s, new Date(local(2, 3, 30, 10)))).toBe(false);
  });
});

describe('scheduled reboot on the injected clock', () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it('a daily schedule set days ahead reboots at its minute, once a day, and not once disabled', async () => {
    const clock = new ManualClock(local(1, 10, 0));
    const n = await startTestNode({ clock, config: { hardwareSafety: false } });
    stops.push(() => n.stop());
    const sched = { enabled: true, day: 'daily', hour: 3, minute: 30 };
    expect((await n.api('POST', '/api/relaynode/reboot-schedule', sched)).status).toBe(200);
    const calls = () => (n.power as unknown as { calls: string[] }).calls;

    clock.set(local(2, 3, 29, 59, 999));
    await settle();
    expect(calls()).toEqual([]);
    clock.set(local(2, 3, 30));
    await settle();
    expect(calls()).toEqual(['reboot']);
    // The rest of that minute, and the rest of the day: nothing more.
    clock.set(local(2, 23, 59));
    await settle();
    expect(calls()).toEqual(['reboot']);
    clock.set(local(3, 3, 30, 1));
    await settle();
    expect(calls()).toEqual(['reboot', 'reboot']);
    expect(n.settings.get().reboot_handled_day).toBe('2026-06-03');

    await n.api('POST', '/api/relaynode/reboot-schedule', { ...sched, enabled: false });
    clock.set(local(5, 3, 31));
    await settle();
    expect(calls()).toEqual(['reboot', 'reboot']);
  });

  it('a weekly schedule changed through the API moves to the new day and time', async () => {
    const clock = new ManualClock(local(1, 10, 0));
    const n = await startTestNode({ clock, config: { hardwareSafety: false } });
    stops.push(() => n.stop());
    const calls = () => (n.power as unknown as { calls: string[] }).calls;
    await n.api('POST', '/api/relaynode/reboot-schedule', {
      enabled: true,
      day: 'tuesday',
      hour: 2,
      minute: 0,
    });
    await n.api('POST', '/api/relaynode/reboot-schedule', {
      enabled: true,
      day: 'wednesday',
      hour: 5,
      minute: 45,
    });
    clock.set(local(2, 2, 1));
    await settle();
    expect(calls()).toEqual([]);
    clock.set(local(3, 5, 44, 59));
    await settle();
    expect(calls()).toEqual([]);
    clock.set(local(3, 5, 45, 30));
    await settle();
    expect(calls()).toEqual(['reboot']);
  });
});
