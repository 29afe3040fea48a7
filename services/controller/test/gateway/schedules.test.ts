import { ManualClock } from '@outpost/runtime/clock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { nextExercise, nextWeekly } from '../../src/domain/schedule-time.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

const TZ = 'America/New_York';
// Monday 9 March 2026, 06:29 EDT (the day after the DST change).
const MONDAY_0629 = Date.UTC(2026, 2, 9, 10, 29);
const MIN = 60_000;

let tdb: TestDatabase;
let database: Database;
let t: TestApp;

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
}, 60_000);
afterAll(async () => {
  await database.close();
  await tdb.cleanup();
});
afterEach(async () => {
  await t?.close();
});

const app = (clock = new ManualClock(MONDAY_0629)) => testApp(database, { clock, config: { timezone: TZ } });
const sched = { name: 'Monday morning', days_of_week: [1], start_time: '06:30', duration_minutes: 20 };

describe('schedule time handling', () => {
  it('computes the next weekly start in the configured time zone across a DST change', () => {
    const saturdayNoonUtc = Date.UTC(2026, 2, 7, 12);
    expect(new Date(nextWeekly([1], '06:30', TZ, saturdayNoonUtc)!).toISOString()).toBe(
      '2026-03-09T10:30:00.000Z',
    );
    expect(new Date(nextWeekly([5], '06:30', TZ, saturdayNoonUtc - 3 * 86_400_000)!).toISOString()).toBe(
      '2026-03-06T11:30:00.000Z',
    );
    expect(new Date(nextWeekly([0, 6], '23:59', 'UTC', saturdayNoonUtc)!).toISOString()).toBe(
      '2026-03-07T23:59:00.000Z',
    );
  });

  it('the exercise after one falls on the same wall-clock time frequency_days later', () => {
    const due = Date.UTC(2026, 2, 2, 15); // 10:00 EST
    expect(new Date(nextExercise('10:00', TZ, 7, due)).toISOString()).toBe('2026-03-09T14:00:00.000Z'); // 10:00 EDT
  });
});

describe('/api/schedules', () => {
  it('CRUD with next_execution and input bounds', async () => {
    t = await app();
    const created = await t.request('POST', '/api/schedules', sched);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 1,
      ...sched,
      enabled: true,
      next_execution: Date.UTC(2026, 2, 9, 10, 30) / 1000,
      last_result: null,
    });
    for (const bad of [
      { ...sched, start_time: '25:00' },
      { ...sched, duration_minutes: 0 },
      { ...sched, duration_minutes: 1441 },
      { ...sched, days_of_week: [7] },
      { ...sched, days_of_week: [] },
      { ...sched, surprise: true },
    ]) {
      const res = await t.request('POST', '/api/schedules', bad);
      expect(res.status).toBe(422);
    }
    expect((await t.request('POST', '/api/schedules', { ...sched, start_time: '6:30' })).body.detail).toMatch(
      /start_time/,
    );
    const upd = await t.request('PUT', '/api/schedules/1', { enabled: false });
    expect(upd.body).toMatchObject({ enabled: false, next_execution: null });
    expect((await t.request('GET', '/api/schedules')).body).toHaveLength(1);
    expect((await t.request('DELETE', '/api/schedules/1')).status).toBe(200);
    expect((await t.request('GET', '/api/schedules/1')).status).toBe(404);
  });

  it('a due schedule starts a scheduled run that stops after duration_minutes with scheduled_end', async () => {
    t = await app();
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/schedules', sched);
    t.clock.advance(MIN);
    await waitFor(() => t.svc.controller.view().running);
    expect(t.svc.controller.view()).toMatchObject({ trigger: 'scheduled' });
    await waitFor(async () => (await t.request('GET', '/api/schedules/1')).body.last_result === 'started');
    t.clock.advance(20 * MIN);
    await waitFor(
      async () => (await t.request('GET', '/api/generator/history')).body[0]?.stop_reason !== null,
    );
    const run = (await t.request('GET', '/api/generator/history')).body[0];
    expect(run).toMatchObject({
      trigger_type: 'scheduled',
      stop_reason: 'scheduled_end',
      duration_seconds: 1200,
      scheduled_run_id: 1,
    });
    expect((await t.request('GET', '/api/schedules/1')).body.next_execution).toBe(
      Date.UTC(2026, 2, 16, 10, 30) / 1000,
    );
  });

  const skipCases: [string, (t: TestApp) => Promise<void>, string][] = [
    ['not armed', async () => {}, 'skipped: not armed'],
    [
      'already running',
      async (a) => {
        await a.request('POST', '/api/generator/arm');
        await a.request('POST', '/api/generator/start', {});
      },
      'skipped: already running',
    ],
    [
      'lockout',
      async (a) => {
        await a.request('POST', '/api/generator/arm');
        await a.svc.controller.updateSettings(
          { limits: { runtime_limits_enabled: true, max_run_minutes: 1 } },
          { who: 't', from: 't' },
        );
        await a.request('POST', '/api/generator/start', {});
        a.clock.advance(MIN);
        await waitFor(() => a.svc.controller.view().lockout_active === true);
      },
      'skipped: lockout',
    ],
    [
      'quiet',
      async (a) => {
        await a.request('POST', '/api/generator/arm');
        await a.request('POST', '/api/dev/gpio/hoa', { position: 'quiet' });
      },
      'skipped: quiet',
    ],
  ];

  for (const [name, setup, result] of skipCases) {
    it(`a skipped run is logged with its reason: ${name}`, async () => {
      t = await app();
      await setup(t);
      await t.request('POST', '/api/schedules', { ...sched, start_time: '06:31' });
      t.clock.set(Date.UTC(2026, 2, 9, 10, 31));
      await waitFor(async () => (await t.request('GET', '/api/schedules/1')).body.last_result !== null);
      expect((await t.request('GET', '/api/schedules/1')).body.last_result).toBe(result);
    });
  }
});

describe('/api/exercise', () => {
  it('runs every frequency_days at start_time under the automated gates (force_stop skips it)', async () => {
    t = await app(new ManualClock(Date.UTC(2026, 2, 9, 13, 59)));
    const initial = await t.request('GET', '/api/exercise');
    expect(initial.body).toMatchObject({ enabled: false, next_exercise_date: null });
    const put = await t.request('PUT', '/api/exercise', {
      enabled: true,
      frequency_days: 7,
      start_time: '10:00',
      duration_minutes: 15,
    });
    expect(put.body).toMatchObject({
      enabled: true,
      frequency_days: 7,
      next_exercise_date: Date.UTC(2026, 2, 9, 14) / 1000,
    });
    expect((await t.request('PUT', '/api/exercise', { frequency_days: 0 })).status).toBe(422);
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/override/enable', { override_type: 'force_stop' });
    t.clock.advance(MIN);
    await waitFor(async () => (await t.request('GET', '/api/exercise')).body.last_result !== null);
    const after = (await t.request('GET', '/api/exercise')).body;
    expect(after).toMatchObject({
      last_result: 'skipped: force_stop',
      next_exercise_date: Date.UTC(2026, 2, 16, 14) / 1000,
    });
  });

  it('until_battery_full: stored with its full value and maximum; a value off its schema is refused with 422 and changes nothing', async () => {
    t = await app(new ManualClock(Date.UTC(2026, 2, 9, 13, 59)));
    const initial = (await t.request('GET', '/api/exercise')).body;
    // The spec's defaults stay as they were; the option is off by default.
    expect(initial).toMatchObject({
      enabled: false,
      frequency_days: 7,
      start_time: '10:00',
      duration_minutes: 15,
      until_battery_full: false,
      battery_full_soc: 100,
      max_duration_minutes: 240,
    });
    const put = await t.request('PUT', '/api/exercise', {
      enabled: true,
      until_battery_full: true,
      battery_full_soc: 98,
      max_duration_minutes: 180,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      until_battery_full: true,
      battery_full_soc: 98,
      max_duration_minutes: 180,
    });
    const stored = (await t.request('GET', '/api/exercise')).body;
    for (const bad of [
      { battery_full_soc: 101 },
      { battery_full_soc: 0 },
      { battery_full_soc: '100' },
      { until_battery_full: 'yes' },
      { max_duration_minutes: 1441 },
      { max_duration_minutes: 90.5 },
    ]) {
      const res = await t.request('PUT', '/api/exercise', bad);
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect((await t.request('GET', '/api/exercise')).body).toEqual(stored);
    }
    const longer = await t.request('PUT', '/api/exercise', {
      duration_minutes: 200,
      max_duration_minutes: 300,
    });
    expect(longer.body).toMatchObject({ duration_minutes: 200, max_duration_minutes: 300 });
    // Each field within its schema is taken whatever the other holds (the document states no rule
    // between them): a maximum below the duration is stored as sent and counts as the duration.
    for (const body of [
      { max_duration_minutes: 10 },
      { duration_minutes: 400 },
      { duration_minutes: 30, max_duration_minutes: 20 },
    ]) {
      const res = await t.request('PUT', '/api/exercise', body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body, JSON.stringify(body)).toMatchObject(body);
    }
  });

  it('an exercise with until_battery_full runs on past its duration until the REST soc source reports full', async () => {
    t = await app(new ManualClock(Date.UTC(2026, 2, 9, 13, 59)));
    const cfg = await t.request('PUT', '/api/conditions/config', {
      sources: { soc: { type: 'rest', stale_after_seconds: 600 } },
    });
    expect(cfg.status).toBe(200);
    await t.request('PUT', '/api/exercise', {
      enabled: true,
      frequency_days: 7,
      start_time: '10:00',
      duration_minutes: 15,
      until_battery_full: true,
      battery_full_soc: 100,
      max_duration_minutes: 120,
    });
    await t.request('POST', '/api/generator/arm');
    const soc = (value: number) => t.request('PUT', '/api/conditions/sources/soc/value', { value });
    await soc(70);
    t.clock.advance(MIN);
    await waitFor(() => t.svc.controller.view().running);
    for (let m = 0; m < 20; m += 5) {
      await soc(85);
      t.clock.advance(5 * MIN);
    }
    await soc(99);
    // 20 minutes in: past the 15-minute duration, still running on a soc below full.
    expect(t.svc.controller.view()).toMatchObject({ running: true, trigger: 'exercise' });
    await soc(100);
    await waitFor(() => !t.svc.controller.view().running);
    await waitFor(
      async () => (await t.request('GET', '/api/generator/history')).body[0]?.stop_reason !== null,
    );
    expect((await t.request('GET', '/api/generator/history')).body[0]).toMatchObject({
      trigger_type: 'exercise',
      stop_reason: 'exercise_end',
      duration_seconds: 20 * 60,
    });
  });

  it('a maximum below the duration is taken and counts as the duration: the run ends at its duration, not before', async () => {
    t = await app(new ManualClock(Date.UTC(2026, 2, 9, 13, 59)));
    await t.request('PUT', '/api/conditions/config', {
      sources: { soc: { type: 'rest', stale_after_seconds: 600 } },
    });
    const put = await t.request('PUT', '/api/exercise', {
      enabled: true,
      frequency_days: 7,
      start_time: '10:00',
      duration_minutes: 15,
      until_battery_full: true,
      battery_full_soc: 100,
      max_duration_minutes: 10,
    });
    expect(put.status).toBe(200);
    await t.request('POST', '/api/generator/arm');
    const soc = (value: number) => t.request('PUT', '/api/conditions/sources/soc/value', { value });
    await soc(70);
    t.clock.advance(MIN);
    await waitFor(() => t.svc.controller.view().running);
    for (let m = 0; m < 10; m += 5) {
      await soc(80);
      t.clock.advance(5 * MIN);
    }
    await soc(80);
    t.clock.advance(MIN);
    // 11 minutes in, past the maximum given: still running, since the run never ends before its duration.
    expect(t.svc.controller.view()).toMatchObject({ running: true, trigger: 'exercise' });
    t.clock.advance(4 * MIN);
    await waitFor(() => !t.svc.controller.view().running);
    await waitFor(
      async () => (await t.request('GET', '/api/generator/history')).body[0]?.stop_reason !== null,
    );
    expect((await t.request('GET', '/api/generator/history')).body[0]).toMatchObject({
      stop_reason: 'exercise_end',
      duration_seconds: 15 * 60,
    });
  });

  it('an exercise run starts with trigger exercise and ends with exercise_end', async () => {
    t = await app(new ManualClock(Date.UTC(2026, 2, 9, 13, 59)));
    await t.request('PUT', '/api/exercise', {
      enabled: true,
      frequency_days: 14,
      start_time: '10:00',
      duration_minutes: 15,
    });
    await t.request('POST', '/api/generator/arm');
    t.clock.advance(MIN);
    await waitFor(() => t.svc.controller.view().running);
    expect(t.svc.controller.view().trigger).toBe('exercise');
    t.clock.advance(15 * MIN);
    await waitFor(
      async () => (await t.request('GET', '/api/generator/history')).body[0]?.stop_reason !== null,
    );
    const run = (await t.request('GET', '/api/generator/history')).body[0];
    expect(run).toMatchObject({
      trigger_type: 'exercise',
      stop_reason: 'exercise_end',
      duration_seconds: 900,
    });
    expect((await t.request('GET', '/api/exercise')).body.next_exercise_date).toBe(
      Date.UTC(2026, 2, 23, 14) / 1000,
    );
  });
});
