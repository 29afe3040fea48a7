import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { nextPhase } from '../../src/domain/transitions.js';
import { harness, USER } from '../helpers/harness.js';

const MIN = 60_000;

describe('transition table', () => {
  it('idle → running on bms HIGH when armed, trigger bms', async () => {
    const h = await harness({ armed: true });
    await h.controller.setBmsSignal(true);
    expect(h.controller.view()).toMatchObject({ running: true, state: 'running', trigger: 'bms' });
    expect(h.relay.last).toBe(true);
    expect(h.repo.runs[0]).toMatchObject({ trigger_type: 'bms', stop_time: null });
  });

  it('idle → running on POST start when armed, trigger manual, with the duration auto-stop scheduled', async () => {
    const h = await harness({ armed: true });
    const out = await h.controller.start({
      trigger: 'manual',
      actor: USER,
      duration_minutes: 30,
      notes: 'test run',
    });
    expect(out.run_id).toBe(1);
    expect(out.scheduled_stop_at).toBe(h.clock.now() + 30 * MIN);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'manual', current_run_id: 1 });
    await h.advance(30 * MIN);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({
      stop_reason: 'scheduled_end',
      duration_seconds: 1800,
      notes: 'test run',
    });
  });

  it('idle → running on a scheduled run when armed, trigger scheduled', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({
      trigger: 'scheduled',
      actor: USER,
      duration_minutes: 10,
      scheduled_run_id: 7,
    });
    expect(h.controller.view().trigger).toBe('scheduled');
    expect(h.repo.runs[0]).toMatchObject({ trigger_type: 'scheduled', scheduled_run_id: 7 });
  });

  it('idle → running on the exercise schedule under the automated gates, trigger exercise', async () => {
    const h = await harness({ armed: true });
    await h.controller.enableOverride('force_stop', USER);
    await expect(
      h.controller.start({ trigger: 'exercise', actor: USER, duration_minutes: 15 }),
    ).rejects.toMatchObject({
      code: 'force_stop',
    });
    await h.controller.disableOverride(USER);
    await h.controller.start({ trigger: 'exercise', actor: USER, duration_minutes: 15 });
    expect(h.controller.view().trigger).toBe('exercise');
  });

  it('running → idle on bms LOW when the run was started by the signal, stop reason bms', async () => {
    const h = await harness({ armed: true });
    await h.controller.setBmsSignal(true);
    await h.advance(5 * MIN);
    await h.controller.setBmsSignal(false);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'bms', duration_seconds: 300 });
    expect(h.relay.last).toBe(false);
  });

  it('running: bms LOW is ignored by a manual run and by a scheduled run', async () => {
    for (const trigger of ['manual', 'scheduled'] as const) {
      const h = await harness({ armed: true });
      await h.controller.start({ trigger, actor: USER, duration_minutes: 60 });
      await h.controller.setBmsSignal(true);
      await h.controller.setBmsSignal(false);
      expect(h.controller.view()).toMatchObject({ running: true, trigger });
    }
  });

  it('running → idle on POST stop, stop reason manual; a stop is allowed disarmed too', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    const out = await h.controller.stop('manual', USER, 'done');
    expect(out).toMatchObject({ run_id: 1, stop_reason: 'manual', was_running: true });
    expect(h.controller.view()).toMatchObject({ running: false, state: 'idle', armed: true });
    expect(h.repo.runs[0]?.stop_reason).toBe('manual');
    await h.controller.disarm(USER);
    expect(await h.controller.stop('manual', USER)).toMatchObject({ was_running: false });
  });

  it('running → idle on disarm: the run ends with stop reason disarmed and the relay is told OFF', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.disarm(USER);
    expect(h.controller.view()).toMatchObject({ running: false, state: 'idle', armed: false });
    expect(h.controller.desired()).toEqual({ armed: false, relay_on: false });
    expect(h.repo.runs[0]).toMatchObject({
      stop_reason: 'disarmed',
      stop_note: 'automation disarmed during the run',
    });
    expect(h.relay.last).toBe(false);
    expect(h.repo.events()).toContain('generator.stopped.disarmed');
  });

  it('running → idle when the duration is reached: scheduled_end and exercise_end', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'scheduled', actor: USER, duration_minutes: 20 });
    await h.advance(20 * MIN);
    await h.controller.start({ trigger: 'exercise', actor: USER, duration_minutes: 15 });
    await h.advance(15 * MIN);
    expect(h.repo.runs.map((r) => r.stop_reason)).toEqual(['scheduled_end', 'exercise_end']);
    expect(h.repo.events()).toContain('exercise_completed');
  });

  it('running → idle at max_run_minutes with reason max_runtime when runtime limits are enabled', async () => {
    const h = await harness({
      armed: true,
      settings: { limits: { runtime_limits_enabled: true, max_run_minutes: 60 } },
    });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(60 * MIN);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'max_runtime', duration_seconds: 3600 });
  });

  it('running → idle with reason comm_loss when the relay node reports its failsafe', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.relayReported({ failsafe_triggered: true });
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]?.stop_reason).toBe('comm_loss');
  });

  it('a second start while running is refused and changes nothing', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await expect(h.controller.start({ trigger: 'manual', actor: USER })).rejects.toBeInstanceOf(DomainError);
    expect(h.repo.runs).toHaveLength(1);
  });

  it('phases follow IDLE, STARTING, RUNNING, STOPPING, IDLE and reject anything else', () => {
    expect(nextPhase('idle', 'start')).toBe('starting');
    expect(nextPhase('starting', 'started')).toBe('running');
    expect(nextPhase('starting', 'start_failed')).toBe('idle');
    expect(nextPhase('running', 'stop')).toBe('stopping');
    expect(nextPhase('stopping', 'stopped')).toBe('idle');
    expect(() => nextPhase('idle', 'stop')).toThrow(/invalid generator transition/);
  });
});

describe('start and stop sequences', () => {
  it('start: state row, relay ON, run record, then generator.started.{trigger} and generator_started', async () => {
    const h = await harness({ armed: true });
    const order: string[] = [];
    h.repo.onCommit = (label) => label !== 'alive' && order.push(label);
    h.relay.log = (entry) => order.push(entry);
    await h.controller.start({ trigger: 'manual', actor: USER });
    expect(order).toEqual(['start:state', 'relay:on', 'start:run']);
    expect(h.repo.outbox.map((e) => e.event)).toEqual(['generator.started.manual', 'generator_started']);
    expect(h.repo.outbox[0]?.data).toMatchObject({ run_id: 1, trigger: 'manual' });
    expect(h.repo.state).toMatchObject({ generator_running: true, run_trigger: 'manual', current_run_id: 1 });
  });

  it('stop: state row, relay OFF, run record completed, auto-stop cancelled, then the stop events', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER, duration_minutes: 60 });
    const order: string[] = [];
    h.repo.onCommit = (label) => label !== 'alive' && order.push(label);
    h.relay.log = (entry) => order.push(entry);
    h.repo.outbox = [];
    await h.advance(10 * MIN);
    await h.controller.stop('manual', USER);
    expect(order).toEqual(['stop:state', 'relay:off', 'stop:run']);
    expect(h.repo.outbox.map((e) => e.event)).toEqual(['generator.stopped.manual', 'generator_stopped']);
    expect(h.repo.outbox[1]?.data).toMatchObject({ run_id: 1, runtime: 600, reason: 'manual' });
    await h.advance(60 * MIN);
    expect(h.repo.runs).toHaveLength(1);
    expect(h.repo.runs[0]?.stop_reason).toBe('manual');
  });

  it('a failed relay ON command does not undo the start; the heartbeat carries the intent', async () => {
    const h = await harness({ armed: true });
    h.relay.commandRelay = async () => {
      throw new Error('broker went away');
    };
    await h.controller.start({ trigger: 'manual', actor: USER });
    expect(h.controller.desired()).toEqual({ armed: true, relay_on: true });
  });

  it('a start while the relay link is unavailable is refused before anything changes', async () => {
    const h = await harness({ armed: true });
    h.relay.up = false;
    await expect(h.controller.start({ trigger: 'manual', actor: USER })).rejects.toMatchObject({
      code: 'relay_unavailable',
    });
    expect(h.repo.state?.generator_running).toBe(false);
    expect(h.relay.commands.filter((c) => c)).toHaveLength(0);
  });
});
