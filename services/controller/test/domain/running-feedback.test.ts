import { describe, expect, it } from 'vitest';
import { harness, USER } from '../helpers/harness.js';

const SEC = 1000;
const API = { running_feedback_source: 'api', fail_to_start_policy: 'drop_and_lockout' } as const;
const KEEP = { running_feedback_source: 'api', fail_to_start_policy: 'keep_running' } as const;

const count = (events: string[], name: string) => events.filter((e) => e === name).length;

describe('running feedback', () => {
  it('a start with no feedback raises fail_to_start once after START_CONFIRM_SECONDS, drops the relay and locks out', async () => {
    const h = await harness({ armed: true, settings: { health: API } });
    await h.controller.start({ trigger: 'manual', actor: USER });
    expect(h.relay.last).toBe(true);
    await h.advance(59 * SEC);
    expect(h.controller.view()).toMatchObject({ running: true, health_alarm: null });
    await h.advance(1 * SEC);
    expect(h.relay.last).toBe(false);
    expect(h.controller.view()).toMatchObject({
      running: false,
      lockout_active: true,
      health_alarm: 'fail_to_start',
    });
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'error', duration_seconds: 60 });
    await h.advance(600 * SEC);
    const events = h.repo.events();
    expect(count(events, 'fail_to_start')).toBe(1);
    expect(count(events, 'generator.alarm.fail_to_start')).toBe(1);
    expect(events).toContain('lockout_activated');
    await expect(h.controller.start({ trigger: 'manual', actor: USER })).rejects.toMatchObject({
      code: 'lockout',
    });
    // Acknowledging the lockout clears the alarm too.
    await h.controller.clearLockout(USER);
    expect(h.controller.view()).toMatchObject({ lockout_active: false, health_alarm: null });
  });

  it('feedback in time: no alarm, and the confirm time is recorded', async () => {
    const h = await harness({ armed: true, settings: { health: API } });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(12 * SEC);
    await h.controller.runningFeedback('api', true);
    expect(h.controller.healthStatus().run_confirmed_at).toBe(Math.floor(h.clock.now() / 1000));
    await h.advance(3600 * SEC);
    expect(h.controller.view()).toMatchObject({ running: true, running_feedback: true, health_alarm: null });
    expect(h.repo.events()).not.toContain('fail_to_start');
    expect(h.repo.audit.find((a) => a.action === 'generator.start_confirmed')?.details).toMatchObject({
      confirm_seconds: 12,
    });
  });

  it('a run confirmed before does not excuse the next one: its own missing feedback still fails it', async () => {
    const h = await harness({ armed: true, settings: { health: API } });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.runningFeedback('api', true);
    await h.advance(600 * SEC);
    await h.controller.stop('manual', USER);
    await h.controller.runningFeedback('api', false);
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(60 * SEC);
    expect(h.relay.last).toBe(false);
    expect(h.controller.view()).toMatchObject({ running: false, health_alarm: 'fail_to_start' });
  });

  it('a source chosen during a run gives that run a full confirm window from then', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(3600 * SEC);
    await h.controller.updateHealthSettings({ running_feedback_source: 'api' }, USER);
    await h.advance(59 * SEC);
    expect(h.controller.view()).toMatchObject({ running: true, health_alarm: null });
    await h.advance(1 * SEC);
    expect(h.controller.view()).toMatchObject({ running: false, health_alarm: 'fail_to_start' });
  });

  it('keep_running policy: the alarm fires once and the relay stays ON', async () => {
    const h = await harness({ armed: true, settings: { health: KEEP } });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(120 * SEC);
    expect(h.relay.last).toBe(true);
    expect(h.controller.view()).toMatchObject({
      running: true,
      lockout_active: false,
      health_alarm: 'fail_to_start',
    });
    expect(count(h.repo.events(), 'fail_to_start')).toBe(1);
  });

  it('no feedback message clears an alarm: a late "running" leaves fail_to_start standing until a user acknowledges it', async () => {
    const h = await harness({ armed: true, settings: { health: KEEP } });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(120 * SEC);
    expect(h.controller.view()).toMatchObject({ running: true, health_alarm: 'fail_to_start' });
    await h.controller.runningFeedback('api', true);
    await h.controller.runningFeedback('api', false);
    await h.controller.runningFeedback('api', true);
    expect(h.controller.view()).toMatchObject({ health_alarm: 'fail_to_start' });
    await expect(h.controller.clearLockout(USER)).resolves.toEqual({ cleared: true });
    expect(h.controller.view()).toMatchObject({ lockout_active: false, health_alarm: null });
  });

  it('feedback dropping mid-run raises unexpected_stop and closes the run with that reason', async () => {
    const h = await harness({ armed: true, settings: { health: API } });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.runningFeedback('api', true);
    await h.advance(600 * SEC);
    await h.controller.runningFeedback('api', false);
    expect(h.relay.last).toBe(false);
    expect(h.controller.view()).toMatchObject({
      running: false,
      lockout_active: true,
      health_alarm: 'unexpected_stop',
    });
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'unexpected_stop', duration_seconds: 600 });
    expect(h.repo.events()).toEqual(
      expect.arrayContaining([
        'unexpected_stop',
        'generator.alarm.unexpected_stop',
        'generator.stopped.unexpected_stop',
      ]),
    );
  });

  it('a commanded stop is not an unexpected stop when the feedback falls after it', async () => {
    const h = await harness({ armed: true, settings: { health: API } });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.runningFeedback('api', true);
    await h.controller.stop('manual', USER);
    await h.controller.runningFeedback('api', false);
    expect(h.repo.events()).not.toContain('unexpected_stop');
    expect(h.controller.view()).toMatchObject({ lockout_active: false, health_alarm: null });
  });

  it('still running a confirm window after a commanded stop is recorded as running without a command', async () => {
    const h = await harness({ armed: true, settings: { health: API } });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.runningFeedback('api', true);
    await h.controller.stop('manual', USER);
    const commands = h.relay.commands.length;
    await h.advance(59 * SEC);
    expect(h.repo.runs).toHaveLength(1);
    await h.advance(1 * SEC);
    expect(h.repo.runs[1]).toMatchObject({
      trigger_type: 'external',
      notes: 'still running after a commanded stop',
    });
    expect(h.repo.events()).toContain('external_run');
    expect(h.relay.commands.length).toBe(commands);
  });

  it('a normal run-down after a commanded stop records nothing more', async () => {
    const h = await harness({ armed: true, settings: { health: API } });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.runningFeedback('api', true);
    await h.controller.stop('manual', USER);
    await h.advance(20 * SEC);
    await h.controller.runningFeedback('api', false);
    await h.advance(120 * SEC);
    expect(h.repo.runs).toHaveLength(1);
    expect(h.repo.events()).not.toContain('external_run');
  });

  it('feedback with no command records an external run, sends no relay command and notifies', async () => {
    const h = await harness({ armed: true, settings: { health: API } });
    const commands = h.relay.commands.length;
    await h.controller.runningFeedback('api', true);
    await h.advance(1800 * SEC);
    expect(h.relay.commands.length).toBe(commands);
    expect(h.controller.desired().relay_on).toBe(false);
    expect(h.controller.view()).toMatchObject({ running: false, external_run_active: true });
    expect(h.repo.runs[0]).toMatchObject({ trigger_type: 'external', stop_time: null });
    expect(h.repo.events()).toEqual(expect.arrayContaining(['external_run', 'generator.started.external']));
    await h.controller.runningFeedback('api', false);
    expect(h.relay.commands.length).toBe(commands);
    expect(h.repo.runs[0]).toMatchObject({ trigger_type: 'external', duration_seconds: 1800 });
    expect(h.controller.view().external_run_active).toBe(false);
  });

  it('without a feedback source nothing changes: no alarm, and readings are ignored', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.runningFeedback('api', false);
    await h.advance(3600 * SEC);
    expect(h.controller.view()).toMatchObject({ running: true, running_feedback: null, health_alarm: null });
    await h.controller.stop('manual', USER);
    await h.controller.runningFeedback('api', true);
    expect(h.repo.runs).toHaveLength(1);
    expect(h.controller.healthStatus()).toMatchObject({
      running_feedback_source: 'none',
      external_run_active: false,
    });
  });

  it('only the configured source acts: an MQTT reading is ignored while the source is the API', async () => {
    const h = await harness({ armed: true, settings: { health: API } });
    await h.controller.runningFeedback('mqtt', true);
    expect(h.repo.runs).toHaveLength(0);
    await h.controller.updateHealthSettings({ running_feedback_source: 'mqtt' }, USER);
    expect(h.controller.view().running_feedback).toBe(true);
  });
});
