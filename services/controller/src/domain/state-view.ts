import type { GeneratorStateName, generator, HoaPosition } from '@outpost/contracts';
import { cooldownRemainingSeconds } from './limits.js';
import type { PersistedState } from './types.js';

const sec = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

export interface ViewInputs {
  state: PersistedState;
  phase: GeneratorStateName;
  hoa: HoaPosition;
  bmsActive: boolean;
  now: number;
}

/** GET /api/generator/state and the retained state topic: the spec's fields plus what a client needs. */
export function stateView({ state: s, phase, hoa, bmsActive, now }: ViewInputs): generator.GeneratorState {
  const running = s.generator_running;
  const cooldown = cooldownRemainingSeconds(s, now);
  return {
    running,
    state: running && phase === 'idle' ? 'running' : phase,
    current_run_id: s.current_run_id,
    start_time: sec(s.generator_start_time),
    runtime_seconds:
      running && s.generator_start_time !== null
        ? Math.max(0, Math.floor((now - s.generator_start_time) / 1000))
        : 0,
    trigger: s.run_trigger === 'idle' ? null : s.run_trigger,
    armed: s.slave_relay_armed,
    slave_connected: s.slave_connection_status === 'connected',
    slave_connection_status: s.slave_connection_status,
    slave_physical_safety_engaged: s.slave_physical_safety_engaged,
    missed_heartbeat_count: s.missed_heartbeat_count,
    automation_armed: s.automation_armed,
    manual_disarm_active: s.manual_disarm_active,
    override: s.override_type,
    hoa_position: hoa,
    quiet_override_active: s.quiet_override_active,
    quiet_override_expires_at: sec(s.quiet_override_expires_at),
    lockout_active: s.lockout_active,
    cooldown_active: cooldown > 0,
    cooldown_remaining_seconds: cooldown,
    bms_signal_active: bmsActive,
    scheduled_stop_at: sec(s.scheduled_stop_at),
    updated_at: Math.floor(now / 1000),
  };
}
