import type { PersistedState, RuntimeLimitSettings } from './types.js';

/** When the current run must stop for max_runtime (ms), or null when limits do not apply. */
export function maxRuntimeDeadline(state: PersistedState, limits: RuntimeLimitSettings): number | null {
  if (!limits.runtime_limits_enabled || !state.generator_running || state.generator_start_time === null)
    return null;
  return state.generator_start_time + limits.max_run_minutes * 60_000;
}

export function cooldownRemainingSeconds(state: PersistedState, now: number): number {
  if (state.cooldown_until === null || state.cooldown_until <= now) return 0;
  return Math.ceil((state.cooldown_until - now) / 1000);
}

/** What a max_runtime stop leaves behind: a lockout, or a cooldown when lockout is off. */
export function afterMaxRuntime(
  limits: RuntimeLimitSettings,
  now: number,
): Pick<PersistedState, 'lockout_active' | 'cooldown_until'> {
  if (limits.lockout_on_max_runtime) return { lockout_active: true, cooldown_until: null };
  return {
    lockout_active: false,
    cooldown_until: limits.cooldown_minutes > 0 ? now + limits.cooldown_minutes * 60_000 : null,
  };
}
