import type { StopReason } from '@outpost/contracts';
import type { GeneratorCore } from './controller-core.js';
import type { StopOutcome } from './controller-types.js';
import { stoppedEvents, systemEvent } from './events.js';
import { estimateFuel } from './fuel.js';
import { afterMaxRuntime } from './limits.js';
import type { Actor, PersistedState } from './types.js';

/** Spec order: state row first, relay OFF, run record completed, auto-stop cancelled, events. */
export async function stopSequence(
  core: GeneratorCore,
  reason: StopReason,
  actor: Actor,
  note: string | null,
  value: number | null = null,
): Promise<StopOutcome> {
  const s = core.state;
  if (!s.generator_running) {
    // Relay OFF always works: re-assert it even when there is no run.
    await core.safeRelay(() => core.deps.relay.commandRelay(false));
    void core.writes
      .enqueue(
        {
          label: 'stop:idle',
          audit: [{ action: 'generator.stop', actor, details: { reason, note, was_running: false } }],
        },
        true,
      )
      .catch(() => undefined);
    return { run_id: null, duration_seconds: null, stop_reason: reason, was_running: false };
  }
  const now = core.now;
  const startTime = s.generator_start_time ?? now;
  const duration = Math.max(0, Math.floor((now - startTime) / 1000));
  const fuelUsed = estimateFuel(duration, core.runGph);
  const limitsAfter = reason === 'max_runtime' ? afterMaxRuntime(core.settings.limits, now) : {};
  const next: PersistedState = {
    ...s,
    ...limitsAfter,
    generator_running: false,
    run_trigger: 'idle',
    generator_start_time: null,
    current_run_id: null,
    scheduled_stop_at: null,
    scheduled_stop_reason: null,
  };
  core.transition('stop');
  const ref = core.runRef ?? { id: s.current_run_id };
  core.state = next;
  // In the same step as the state: the meters never see the run neither open nor counted.
  core.meters.runEnded(now, duration, fuelUsed);
  core.hoaHold = false;
  const stateWrite = core.writes.enqueue(
    {
      label: 'stop:state',
      state: next,
      audit: [
        {
          action: 'generator.stop',
          actor,
          details: { reason, note, run_id: ref.id, duration_seconds: duration },
        },
      ],
    },
    true,
  );
  // The database goes first, but a failing or slow database never holds the relay on.
  await core.within(stateWrite);
  await core.safeRelay(() => core.deps.relay.commandRelay(false));
  const trigger = s.run_trigger === 'idle' ? 'manual' : s.run_trigger;
  const info = {
    trigger,
    reason,
    start_time: startTime,
    stop_time: now,
    duration_seconds: duration,
    fuel_gallons: fuelUsed,
    fuel_type: core.settings.fuel.fuel_type,
    note,
  };
  const runWrite = core.writes.enqueue(
    {
      label: 'stop:run',
      closeRuns: [
        {
          ref,
          stop_time: now,
          duration_seconds: duration,
          stop_reason: reason,
          estimated_fuel_used: fuelUsed,
          stop_note: note,
          stop_value: value,
        },
      ],
      events: () => {
        const events = stoppedEvents(ref.id, info);
        if (reason === 'max_runtime') {
          const details = `run stopped after ${core.settings.limits.max_run_minutes} minutes`;
          events.push(systemEvent('max_runtime_reached', now, 'stopped', details, { run_id: ref.id }));
          if (next.lockout_active) {
            events.push(
              systemEvent('lockout_activated', now, 'locked_out', 'acknowledge to allow restarts', {
                run_id: ref.id,
              }),
            );
          }
        }
        return events;
      },
    },
    true,
  );
  core.runRef = null;
  core.events.emit('runClosed');
  await core.within(runWrite);
  core.transition('stopped');
  core.afterChange(true);
  return { run_id: ref.id, duration_seconds: duration, stop_reason: reason, was_running: true };
}
