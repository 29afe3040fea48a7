import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

const MIN = 60_000;
const ADMIN = { who: 'admin', from: '127.0.0.1' };
const db = useTestDatabase();
let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const reports = async () =>
  (await t.request('GET', '/api/exercise/reports')).body as Record<string, unknown>[];

describe('exercise reports', () => {
  it('a confirmed exercise that ran its full duration passes, with its time to confirm', async () => {
    t = await testApp(db());
    await t.request('PUT', '/api/health/settings', { running_feedback_source: 'api' });
    await t.request('POST', '/api/generator/arm');
    await t.svc.controller.start({ trigger: 'exercise', actor: ADMIN, duration_minutes: 15 });
    t.clock.advance(8_000);
    await t.request('POST', '/api/health/running-feedback', { running: true });
    t.clock.advance(15 * MIN - 8_000);
    await waitFor(async () => (await reports()).length === 1);
    expect((await reports())[0]).toMatchObject({
      confirmed: true,
      confirm_seconds: 8,
      planned_minutes: 15,
      ran_seconds: 900,
      full_duration: true,
      stop_reason: 'exercise_end',
      passed: true,
    });
    expect((await t.request('GET', '/api/health')).body.alarm).toBeNull();
  });

  it('an exercise the feedback never confirmed fails, and that is an alarm', async () => {
    t = await testApp(db());
    await t.request('PUT', '/api/health/settings', {
      running_feedback_source: 'api',
      fail_to_start_policy: 'keep_running',
    });
    await t.request('POST', '/api/generator/arm');
    await t.svc.controller.start({ trigger: 'exercise', actor: ADMIN, duration_minutes: 15 });
    t.clock.advance(15 * MIN);
    await waitFor(async () => (await reports()).length === 1);
    expect((await reports())[0]).toMatchObject({ confirmed: false, confirm_seconds: null, passed: false });
    await waitFor(async () => (await t.request('GET', '/api/health')).body.alarm === 'exercise_failed');
    expect((await t.request('GET', '/api/exercise/reports?limit=0')).status).toBe(422);
  });

  it('without a feedback source the report says nothing was confirmed, and an early stop raises no alarm', async () => {
    t = await testApp(db());
    await t.request('POST', '/api/generator/arm');
    await t.svc.controller.start({ trigger: 'exercise', actor: ADMIN, duration_minutes: 15 });
    t.clock.advance(5 * MIN);
    await t.request('POST', '/api/generator/stop', {});
    await waitFor(async () => (await reports()).length === 1);
    expect((await reports())[0]).toMatchObject({ confirmed: null, full_duration: false, passed: false });
    expect((await t.request('GET', '/api/health')).body.alarm).toBeNull();
  });
});
