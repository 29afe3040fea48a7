import type { HoaPosition, Trigger } from '@outpost/contracts';
import { CONDITION_NAMES } from '@outpost/contracts/conditions';
import { REFUSAL_MESSAGES, type RefusalCode } from './errors.js';
import type { PersistedState } from './types.js';

export interface StartRequestContext {
  trigger: Trigger;
  /** The start comes from the HOA selector at Run (operator hold). */
  hoaRun?: boolean;
}

export interface GateInput {
  state: PersistedState;
  hoa: HoaPosition;
  now: number;
}

export interface Refusal {
  code: RefusalCode;
  message: string;
}

// The start conditions (soc, battery_voltage, …) are automatic starts like the input signal.
const CONDITION_TRIGGERS: ReadonlySet<Trigger> = new Set(CONDITION_NAMES);
const AUTOMATION: ReadonlySet<Trigger> = new Set(['bms', 'scheduled', 'exercise', ...CONDITION_NAMES]);

export const isAutomation = (trigger: Trigger): boolean => AUTOMATION.has(trigger);

/** The HOA Quiet gate is in force: selector at Quiet and no Quiet override. */
export function quietGateActive(state: PersistedState, hoa: HoaPosition): boolean {
  return hoa === 'quiet' && !state.quiet_override_active;
}

/**
 * Decides whether a start may happen, in the spec's precedence (highest first): EPO; HOA Run;
 * Quiet override; HOA Quiet gate; arming, runtime limits and cooldown; then the trigger itself
 * (force_stop blocks the input signal and the exercise schedule, which shares the automated gates).
 */
export function checkStart(req: StartRequestContext, input: GateInput): Refusal | null {
  const { state, hoa, now } = input;
  const refuse = (code: RefusalCode, message?: string): Refusal => ({
    code,
    message: message ?? (REFUSAL_MESSAGES as Record<string, string>)[code] ?? code,
  });
  if (state.generator_running) return refuse('already_running');
  if (state.slave_physical_safety_engaged) return refuse('epo');
  // A standing request (the input signal, a start condition, the selector at Run) asks again at every
  // evaluation: into a relay node that is not connected, each start would end with comm_loss one lease
  // later and be taken again at once. It waits for the node; its return is evaluated like any change.
  const standing = req.hoaRun || req.trigger === 'bms' || CONDITION_TRIGGERS.has(req.trigger);
  if (standing && state.slave_connection_status === 'disconnected') {
    return refuse('relay_unavailable', REFUSAL_MESSAGES.relay_node_disconnected);
  }
  if (req.hoaRun) return null;
  if (isAutomation(req.trigger) && quietGateActive(state, hoa)) return refuse('quiet');
  if (!state.slave_relay_armed) return refuse('not_armed');
  if (state.lockout_active) return refuse('lockout');
  if (isAutomation(req.trigger) && state.cooldown_until !== null && state.cooldown_until > now) {
    const seconds = Math.ceil((state.cooldown_until - now) / 1000);
    return refuse('cooldown', `Cannot start - cooldown active for ${seconds} more seconds`);
  }
  const signalLike =
    req.trigger === 'bms' || req.trigger === 'exercise' || CONDITION_TRIGGERS.has(req.trigger);
  if (signalLike && state.override_type === 'force_stop') {
    return refuse('force_stop');
  }
  return null;
}

/** Whether a falling input signal stops the current run. */
export function bmsLowStops(state: PersistedState, hoaHold: boolean): boolean {
  return (
    state.generator_running && state.run_trigger === 'bms' && state.override_type !== 'force_run' && !hoaHold
  );
}
