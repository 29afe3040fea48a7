import type { BootArmingPolicy } from '@outpost/contracts';
import { disarmedSince, type PersistedState } from './types.js';

export interface BootResetResult {
  state: PersistedState;
  relayDisarmedByPolicy: boolean;
  wasRunning: boolean;
  /** The run left open by the previous process, to be closed now. */
  orphanRunId: number | null;
  quietOverrideExpired: boolean;
}

/**
 * The controller boot reset table: always unknown connection and zero missed heartbeats; fail_safe
 * disarms an armed relay and sets manual_disarm_active; a running generator is reset to idle.
 */
export function bootReset(previous: PersistedState, policy: BootArmingPolicy, now: number): BootResetResult {
  const state: PersistedState = {
    ...previous,
    slave_connection_status: 'unknown',
    missed_heartbeat_count: 0,
    // The meter keeps what its last write counted; the time the process was down is not engine time.
    engine_counting_since: null,
  };
  const relayDisarmedByPolicy = policy === 'fail_safe' && previous.slave_relay_armed;
  if (relayDisarmedByPolicy) {
    state.slave_relay_armed = false;
    state.automation_armed = false;
    state.automation_disarmed_at = disarmedSince(previous, now);
    state.manual_disarm_active = true;
  }
  const wasRunning = previous.generator_running;
  const orphanRunId = previous.current_run_id;
  if (wasRunning || orphanRunId !== null) {
    state.generator_running = false;
    state.run_trigger = 'idle';
    state.generator_start_time = null;
    state.current_run_id = null;
    state.scheduled_stop_at = null;
    state.scheduled_stop_reason = null;
  }
  // The Quiet override survives a restart unless its timer ran out meanwhile.
  const quietOverrideExpired =
    previous.quiet_override_active &&
    previous.quiet_override_expires_at !== null &&
    previous.quiet_override_expires_at <= now;
  if (quietOverrideExpired) {
    state.quiet_override_active = false;
    state.quiet_override_expires_at = null;
  }
  if (state.cooldown_until !== null && state.cooldown_until <= now) state.cooldown_until = null;
  return { state, relayDisarmedByPolicy, wasRunning, orphanRunId, quietOverrideExpired };
}
