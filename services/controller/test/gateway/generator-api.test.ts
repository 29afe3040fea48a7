import { serveApp } from '@outpost/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

const MIN = 60_000;
let tdb: TestDatabase;
let database: Database;
let t: TestApp;

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
}, 30_000);
afterAll(async () => {
  await database.close();
  await tdb.cleanup();
});
afterEach(async () => {
  await t?.close();
});

describe('generator REST API', () => {
  it('GET /api/generator/state shows the spec fields', async () => {
    t = await testApp(database);
    const res = await t.request('GET', '/api/generator/state');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      running: false,
      state: 'idle',
      current_run_id: null,
      start_time: null,
      runtime_seconds: 0,
      trigger: null,
      armed: false,
      slave_connected: false,
    });
  });

  it('start while disarmed: 409 with "Cannot start - automation is not armed"; nothing changes', async () => {
    t = await testApp(database);
    const res = await t.request('POST', '/api/generator/start', {});
    expect(res).toMatchObject({ status: 409, body: { detail: 'Cannot start - automation is not armed' } });
    expect((await t.request('GET', '/api/generator/state')).body.running).toBe(false);
    expect(t.relay.commands.includes(true)).toBe(false);
  });

  it('arm, start with duration and notes, stop: bodies carry run_id, start_time and duration', async () => {
    t = await testApp(database);
    expect((await t.request('POST', '/api/generator/arm')).body).toMatchObject({
      success: true,
      armed: true,
    });
    const start = await t.request('POST', '/api/generator/start', {
      duration_minutes: 30,
      notes: 'load test',
    });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ success: true, run_id: 1, trigger: 'manual' });
    expect(start.body.start_time).toBe(Math.floor(t.clock.now() / 1000));
    expect(start.body.scheduled_stop_at).toBe(start.body.start_time + 1800);
    t.clock.advance(10 * MIN);
    const stop = await t.request('POST', '/api/generator/stop', { reason: 'test over' });
    expect(stop.body).toMatchObject({
      success: true,
      run_id: 1,
      duration_seconds: 600,
      stop_reason: 'manual',
    });
    const history = await t.request('GET', '/api/generator/history?limit=10');
    expect(history.headers.get('x-total-count')).toBe('1');
    expect(history.body[0]).toMatchObject({
      id: 1,
      trigger_type: 'manual',
      stop_reason: 'manual',
      notes: 'load test',
      stop_note: 'test over',
      duration_seconds: 600,
    });
  });

  it('stop without a body works and re-sends relay OFF when idle', async () => {
    t = await testApp(database);
    const res = await t.request('POST', '/api/generator/stop');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ run_id: null, duration_seconds: null });
    expect(t.relay.last).toBe(false);
  });

  it('bad input: unparseable JSON 400, schema violations 422 naming the field, out-of-range 422; no state change', async () => {
    t = await testApp(database);
    await t.request('POST', '/api/generator/arm');
    const bad = await t.request('POST', '/api/generator/start', '{"duration_minutes": ');
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBeTypeOf('string');
    const wrongType = await t.request('POST', '/api/generator/start', { duration_minutes: 'ten' });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail).toMatch(/duration_minutes/);
    for (const duration_minutes of [0, 1441, 1.5]) {
      const r = await t.request('POST', '/api/generator/start', { duration_minutes });
      expect(r.status).toBe(422);
      expect(r.body.detail).toMatch(/duration_minutes/);
    }
    const notes = await t.request('POST', '/api/generator/start', { notes: 'x'.repeat(501) });
    expect(notes.status).toBe(422);
    expect(notes.body.detail).toMatch(/notes/);
    const reason = await t.request('POST', '/api/generator/stop', { reason: 'y'.repeat(201) });
    expect(reason.status).toBe(422);
    expect(reason.body.detail).toMatch(/reason/);
    const extra = await t.request('POST', '/api/override/enable', { override_type: 'force_maybe' });
    expect(extra.status).toBe(422);
    expect(extra.body.detail).toMatch(/override_type/);
    const state = await t.request('GET', '/api/generator/state');
    expect(state.body).toMatchObject({ running: false, override: null });
    expect(t.relay.commands.includes(true)).toBe(false);
  });

  it('EPO engaged: start refused with 409 and a detail message', async () => {
    t = await testApp(database);
    await t.request('POST', '/api/generator/arm');
    await t.svc.controller.relayReported({ physical_safety_engaged: true });
    const res = await t.request('POST', '/api/generator/start', {});
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/EPO/);
  });

  it('history filters by trigger_type and limit; stats sums runs by trigger', async () => {
    t = await testApp(database);
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/generator/start', {});
    t.clock.advance(10 * MIN);
    await t.request('POST', '/api/generator/stop', {});
    await t.request('POST', '/api/dev/gpio/bms-signal', { active: true });
    t.clock.advance(20 * MIN);
    await t.request('POST', '/api/dev/gpio/bms-signal', { active: false });
    const bms = await t.request('GET', '/api/generator/history?trigger_type=bms');
    expect(bms.headers.get('x-total-count')).toBe('1');
    expect(bms.body[0]).toMatchObject({
      trigger_type: 'bms',
      stop_reason: 'bms',
      duration_seconds: 1200,
    });
    const one = await t.request('GET', '/api/generator/history?limit=1');
    // The spec's "list of run records", with the count beyond limit in a header.
    expect(Array.isArray(one.body)).toBe(true);
    expect(one.body).toHaveLength(1);
    expect(Number(one.headers.get('x-total-count'))).toBeGreaterThan(1);
    expect((await t.request('GET', '/api/generator/history?trigger_type=nope')).status).toBe(422);
    const stats = await t.request('GET', '/api/generator/stats');
    expect(stats.body).toEqual({
      period_days: 30,
      total_runs: 2,
      total_runtime_seconds: 1800,
      total_runtime_hours: 0.5,
      average_runtime_seconds: 900,
      runs_by_trigger: { manual: 1, bms: 1 },
      runtime_by_trigger: { manual: 600, bms: 1200 },
    });
  });

  it('fuel usage since the last reset, from the rate at start', async () => {
    t = await testApp(database);
    const fs = await t.request('PUT', '/api/generator/fuel-settings', {
      fuel_type: 'lpg',
      expected_load: 100,
      gph_at_50: 1.2,
      gph_at_100: 2.4,
    });
    expect(fs.body).toEqual({ fuel_type: 'lpg', expected_load: 100, gph_at_50: 1.2, gph_at_100: 2.4 });
    expect((await t.request('PUT', '/api/generator/fuel-settings', { expected_load: 75 })).status).toBe(422);
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/generator/start', {});
    t.clock.advance(30 * MIN);
    await t.request('POST', '/api/generator/stop', {});
    const usage = await t.request('GET', '/api/generator/fuel-usage');
    expect(usage.body).toMatchObject({ total_gallons: 1.2, total_runtime_seconds: 1800, runs: 1 });
    await t.request('POST', '/api/generator/fuel-usage/reset');
    t.clock.advance(1000);
    expect((await t.request('GET', '/api/generator/fuel-usage')).body).toMatchObject({
      total_gallons: 0,
      runs: 0,
    });
  });

  it('runtime limits: settings, lockout_active, cooldown and clear-lockout with acknowledge', async () => {
    t = await testApp(database);
    const put = await t.request('PUT', '/api/generator/runtime-limits', {
      runtime_limits_enabled: true,
      max_run_minutes: 60,
    });
    expect(put.body).toEqual({
      runtime_limits_enabled: true,
      max_run_minutes: 60,
      cooldown_minutes: 60,
      lockout_on_max_runtime: true,
      lockout_active: false,
      cooldown_active: false,
      cooldown_remaining_seconds: 0,
    });
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/generator/start', {});
    t.clock.advance(60 * MIN);
    // The limit's stop is committed on the database server: it lands after a round trip or two.
    await waitFor(async () => (await t.request('GET', '/api/generator/runtime-limits')).body.lockout_active);
    expect((await t.request('POST', '/api/generator/start', {})).status).toBe(409);
    expect((await t.request('POST', '/api/generator/clear-lockout', { acknowledge: false })).status).toBe(
      422,
    );
    expect((await t.request('POST', '/api/generator/clear-lockout', {})).status).toBe(422);
    const cleared = await t.request('POST', '/api/generator/clear-lockout', { acknowledge: true });
    expect(cleared.body).toMatchObject({ success: true, cleared: true });
    expect((await t.request('GET', '/api/generator/runtime-limits')).body.lockout_active).toBe(false);
  });

  it('overrides: enable, status with since, disable; quiet override through the selector', async () => {
    t = await testApp(database);
    const on = await t.request('POST', '/api/override/enable', { override_type: 'force_stop' });
    expect(on.body).toMatchObject({
      active: true,
      override_type: 'force_stop',
      since: Math.floor(t.clock.now() / 1000),
    });
    expect((await t.request('GET', '/api/override/status')).body.override_type).toBe('force_stop');
    expect((await t.request('POST', '/api/override/disable')).body).toMatchObject({
      active: false,
      override_type: null,
      since: null,
    });
    expect((await t.request('POST', '/api/override/quiet', { minutes: 30 })).status).toBe(409);
    await t.request('POST', '/api/dev/gpio/hoa', { position: 'quiet' });
    const quiet = await t.request('POST', '/api/override/quiet', { minutes: 30 });
    expect(quiet.body).toMatchObject({ quiet_override_active: true, hoa_position: 'quiet' });
    expect(quiet.body.quiet_override_expires_at).toBe(Math.floor(t.clock.now() / 1000) + 1800);
    expect((await t.request('POST', '/api/override/quiet/cancel')).body.quiet_override_active).toBe(false);
  });

  it('dev mode: bms signal, toggle, reset and HOA drive the state machine', async () => {
    t = await testApp(database);
    await t.request('POST', '/api/generator/arm');
    expect((await t.request('POST', '/api/dev/gpio/toggle')).body.bms_signal).toBe(true);
    expect((await t.request('GET', '/api/generator/state')).body).toMatchObject({
      running: true,
      trigger: 'bms',
    });
    expect((await t.request('POST', '/api/dev/gpio/reset')).body.bms_signal).toBe(false);
    expect((await t.request('GET', '/api/generator/state')).body.running).toBe(false);
    const hoa = await t.request('POST', '/api/dev/gpio/hoa', { position: 'fault' });
    expect(hoa.body).toEqual({ bms_signal: false, hoa_quiet: true, hoa_run: true, hoa_position: 'fault' });
    const status = await t.request('GET', '/api/dev/status');
    expect(status.body).toMatchObject({ dev_mode: true, gpio_mode: 'mock' });
  });

  it('every state change lands in the audit log with who and from where', async () => {
    t = await testApp(database);
    await t.login();
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/override/enable', { override_type: 'force_run' });
    const audit = await t.request('GET', '/api/audit?limit=20');
    const actions = audit.body.map(
      (a: { action: string; who: string; from: string }) => `${a.action}|${a.who}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining(['generator.arm|admin', 'override.enable|admin', 'auth.login|admin']),
    );
    expect(audit.body[0].from).toBe('unknown');
  });

  it('OpenAPI document lists the generator endpoints', async () => {
    t = await testApp(database);
    const doc = await t.request('GET', '/api/openapi.json');
    expect(doc.status).toBe(200);
    for (const path of [
      '/api/generator/state',
      '/api/generator/start',
      '/api/override/status',
      '/api/schedules',
      '/api/webhooks',
      '/api/dev/gpio/hoa',
    ]) {
      expect(Object.keys(doc.body.paths)).toContain(path);
    }
  });
});

describe('settings endpoints', () => {
  it('PUT /api/settings stores boot_arming_policy and the input debounce; bad values 422', async () => {
    t = await testApp(database);
    const res = await t.request('PUT', '/api/settings', {
      boot_arming_policy: 'preserve_state',
      bms_debounce_ms: 250,
    });
    expect(res.body).toEqual({
      boot_arming_policy: 'preserve_state',
      boot_arming_policy_from_env: null,
      bms_debounce_ms: 250,
    });
    expect((await t.request('PUT', '/api/settings', { boot_arming_policy: 'yolo' })).status).toBe(422);
    expect((await t.request('PUT', '/api/settings', { bms_debounce_ms: -1 })).status).toBe(422);
    expect((await t.request('GET', '/api/settings')).body.bms_debounce_ms).toBe(250);
    expect((await t.request('GET', '/api/generator/stats?days=0')).status).toBe(422);
    expect((await t.request('GET', '/api/generator/history?limit=0')).status).toBe(422);
  });
});

// The read path is served from a cached view and its serialised JSON: these prove the cache
// follows every change a client can observe, over a real socket.
describe('GET /api/generator/state over a real socket', () => {
  it('answers the same state request after request, and follows changes and the clock', async () => {
    t = await testApp(database);
    const srv = await serveApp(t.app, { port: 0, host: '127.0.0.1' });
    const get = async () => {
      const res = await fetch(`${srv.url}/api/generator/state`, {
        headers: { authorization: `Bearer ${t.token}` },
      });
      // biome-ignore lint/suspicious/noExplicitAny: the test reads JSON fields freely
      return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
    };
    try {
      const first = await get();
      const second = await get();
      expect(first.status).toBe(200);
      expect(second).toEqual(first);
      expect(first.type).toMatch(/^application\/json/);
      expect(first.body.armed).toBe(false);

      expect((await t.request('POST', '/api/generator/arm')).status).toBe(200);
      expect((await get()).body.armed).toBe(true);

      expect((await t.request('POST', '/api/generator/start')).status).toBe(200);
      const running = await get();
      expect(running.body).toMatchObject({ running: true, state: 'running', runtime_seconds: 0 });
      t.clock.advance(90_000);
      const later = await get();
      expect(later.body.runtime_seconds).toBe(90);
      expect(later.body.updated_at).toBe(running.body.updated_at + 90);
    } finally {
      await srv.close();
    }
  });
});
