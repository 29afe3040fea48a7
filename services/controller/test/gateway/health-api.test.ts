import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

const SEC = 1000;
const db = useTestDatabase();
let t: TestApp;
afterEach(async () => {
  await t?.close();
});

/** Moves the manual clock and lets the work its timers started reach the database. */
async function advance(ms: number): Promise<void> {
  t.clock.advance(ms);
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  await t.svc.inputs.settled();
}

describe('generator health REST API', () => {
  it('starts with no running feedback source, and says so', async () => {
    t = await testApp(db());
    const res = await t.request('GET', '/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      running_feedback_source: 'none',
      running_feedback: null,
      fail_to_start_policy: 'drop_and_lockout',
      start_confirm_seconds: 60,
      alarm: null,
      engine_hours: 0,
    });
  });

  it('a bad settings body is refused with 422 naming the field, and nothing changes', async () => {
    t = await testApp(db());
    const bad = await t.request('PUT', '/api/health/settings', {
      running_feedback_source: 'gpio',
      fail_to_start_policy: 'shrug',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain('fail_to_start_policy');
    expect((await t.request('GET', '/api/health')).body.running_feedback_source).toBe('none');
    const extra = await t.request('POST', '/api/health/running-feedback', { running: 'yes' });
    expect(extra.status).toBe(422);
  });

  it('the mock GPIO line, debounced on the clock, confirms a start; the settings survive a restart', async () => {
    t = await testApp(db());
    const set = await t.request('PUT', '/api/health/settings', { running_feedback_source: 'gpio' });
    expect(set.body).toMatchObject({ running_feedback_source: 'gpio', running_feedback: false });
    await t.request('POST', '/api/generator/arm');
    expect((await t.request('POST', '/api/generator/start', {})).status).toBe(200);
    await advance(5 * SEC);
    await t.request('POST', '/api/dev/gpio/running-feedback', { running: true });
    // A chattering AC-sense contact: the level must hold for the debounce (1 s) before it counts.
    await advance(500);
    expect((await t.request('GET', '/api/health')).body.run_confirmed_at).toBeNull();
    await advance(500);
    const health = (await t.request('GET', '/api/health')).body;
    expect(health.running_feedback).toBe(true);
    expect(health.run_confirmed_at).toBe(Math.floor(t.clock.now() / 1000));
    await advance(120 * SEC);
    expect((await t.request('GET', '/api/generator/state')).body).toMatchObject({
      running: true,
      health_alarm: null,
      running_feedback: true,
    });
    const clock = t.clock;
    await t.close();
    t = await testApp(db(), { reset: false, clock });
    expect((await t.request('GET', '/api/health')).body.running_feedback_source).toBe('gpio');
  });

  it('with no feedback in START_CONFIRM_SECONDS the start fails: relay OFF, lockout, alarm in state and history', async () => {
    t = await testApp(db());
    await t.request('PUT', '/api/health/settings', { running_feedback_source: 'api' });
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/generator/start', {});
    await advance(59 * SEC);
    expect(t.relay.last).toBe(true);
    await advance(1 * SEC);
    await waitFor(() => t.relay.last === false);
    await waitFor(async () => (await t.request('GET', '/api/generator/state')).body.lockout_active);
    const state = (await t.request('GET', '/api/generator/state')).body;
    expect(state).toMatchObject({ running: false, lockout_active: true, health_alarm: 'fail_to_start' });
    const history = (await t.request('GET', '/api/generator/history')).body;
    expect(history[0]).toMatchObject({ stop_reason: 'error', duration_seconds: 60 });
    const start = await t.request('POST', '/api/generator/start', {});
    expect(start.status).toBe(409);
  });

  it('feedback from the API with no command records an external run, never commanding the relay', async () => {
    t = await testApp(db());
    await t.request('PUT', '/api/health/settings', { running_feedback_source: 'api' });
    const before = t.relay.commands.length;
    await t.request('POST', '/api/health/running-feedback', { running: true });
    await advance(600 * SEC);
    await t.request('POST', '/api/health/running-feedback', { running: false });
    expect(t.relay.commands.length).toBe(before);
    const history = (await t.request('GET', '/api/generator/history')).body;
    expect(history[0]).toMatchObject({ trigger_type: 'external', duration_seconds: 600 });
  });

  it('setting the hour meter is audited with the value it replaced', async () => {
    t = await testApp(db());
    const res = await t.request('PUT', '/api/health/hour-meter', { hours: 1234.5 });
    expect(res.status).toBe(200);
    expect(res.body.engine_hours).toBe(1234.5);
    expect((await t.request('PUT', '/api/health/hour-meter', { hours: -1 })).status).toBe(422);
    const audit = (await t.request('GET', '/api/audit')).body as { action: string; details: unknown }[];
    expect(audit.find((a) => a.action === 'hour_meter.set')?.details).toEqual({
      previous_hours: 0,
      hours: 1234.5,
    });
    expect((await t.request('GET', '/api/generator/state')).body.engine_hours).toBe(1234.5);
  });
});
