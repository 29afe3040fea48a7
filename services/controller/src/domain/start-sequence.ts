import type { StopReason } from '@outpost/contracts';
import { CONDITION_NAMES } from '@outpost/contracts/conditions';
import type { GeneratorCore } from './controller-core.js';
import type { RelayDelivery, StartCommand, StartOutcome } from './controller-types.js';
import { DomainError, REFUSAL_MESSAGES } from './errors.js';
import { startedEvents } from './events.js';
import { rateFor } from './fuel.js';
import type { AuditDraft, PersistedState, RunRef } from './types.js';

/** Spec order: state row first, relay ON, run record, then the events (outbox). */
export async function startSequence(core: GeneratorCore, cmd: StartCommand): Promise<StartOutcome> {
  const refusal = core.checkStart(cmd.trigger, cmd.hoaRun);
  if (refusal) throw new DomainError(refusal.code, refusal.message);
  const route = relayRoute(core, cmd);
  await core.writes.flush();
  if (core.writes.stalled) throw new DomainError('db_unavailable', REFUSAL_MESSAGES.db_unavailable);
  const now = core.now;
  const duration = cmd.duration_minutes ?? null;
  const stopAt = duration !== null ? now + duration * 60_000 : null;
  const stopReason: StopReason | null =
    stopAt === null ? null : cmd.trigger === 'exercise' ? 'exercise_end' : 'scheduled_end';
  const next: PersistedState = {
    ...core.state,
    generator_running: true,
    run_trigger: cmd.trigger,
    generator_start_time: now,
    current_run_id: null,
    scheduled_stop_at: stopAt,
    scheduled_stop_reason: stopReason,
  };
  core.transition('start');
  const audit: AuditDraft = {
    action: 'generator.start',
    actor: cmd.actor,
    details: { trigger: cmd.trigger, duration_minutes: duration, notes: cmd.notes ?? null },
  };
  const ref: RunRef = { id: null };
  try {
    // Spec start sequence: the state row first, then the relay. Its flush rides on the run
    // record's commit right after the relay command, keeping the fsync off the start latency.
    await core.writes.enqueue(
      { label: 'start:state', state: next, audit: [audit], flushWithNext: true, reserveRunId: ref },
      false,
    );
  } catch (err) {
    core.transition('start_failed');
    core.deps.logger.error({ err }, 'start refused: database write failed');
    throw new DomainError('db_unavailable', REFUSAL_MESSAGES.db_unavailable);
  }
  core.state = next;
  core.hoaHold = cmd.hoaRun === true;
  const sent = await core.safeRelay(() => core.deps.relay.commandRelay(true));
  const fuel = core.settings.fuel;
  core.runRef = ref;
  core.runGph = rateFor(fuel);
  const info = {
    trigger: cmd.trigger,
    start_time: now,
    notes: cmd.notes ?? null,
    fuel_type: fuel.fuel_type,
    scheduled_stop_at: stopAt,
    scheduled_run_id: cmd.scheduled_run_id ?? null,
  };
  const runWrite = core.writes.enqueue(
    {
      label: 'start:run',
      state: next,
      createRun: {
        ref,
        start_time: now,
        trigger_type: cmd.trigger,
        notes: cmd.notes ?? null,
        fuel_type_at_run: fuel.fuel_type,
        load_at_run: fuel.expected_load,
        gph_at_run: core.runGph,
        scheduled_run_id: cmd.scheduled_run_id ?? null,
        trigger_value: cmd.trigger_value ?? null,
      },
      events: (runId) => startedEvents(runId, info),
    },
    true,
  );
  await core.within(runWrite);
  core.transition('started');
  core.afterChange(true);
  return {
    run_id: ref.id,
    start_time: now,
    trigger: cmd.trigger,
    scheduled_stop_at: stopAt,
    relay: route === 'broker' && !sent ? 'heartbeat' : route,
  };
}

/**
 * How this start's relay ON can go out, or a 503-style refusal. With the broker down a start is
 * still recorded when a deferred route exists, except for a standing request (the input signal, the
 * selector at Run): it asks again on every evaluation, so a start that never reaches the relay would
 * end with comm_loss and be taken again at once, a new run every lease. Those wait for the broker.
 */
function relayRoute(core: GeneratorCore, cmd: StartCommand): RelayDelivery {
  const relay = core.deps.relay;
  if (relay.available()) return 'broker';
  const standing = cmd.trigger === 'bms' || isConditionName(cmd.trigger) || cmd.hoaRun === true;
  const route = standing ? null : (relay.deferredRoute?.() ?? null);
  if (route === null) throw new DomainError('relay_unavailable', REFUSAL_MESSAGES.relay_unavailable);
  return route;
}

const CONDITION_TRIGGERS: ReadonlySet<string> = new Set(CONDITION_NAMES);
const isConditionName = (t: string): boolean => CONDITION_TRIGGERS.has(t);
