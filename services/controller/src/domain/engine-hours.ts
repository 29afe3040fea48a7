import type { PersistedState } from './types.js';

export const HOUR_MS = 3_600_000;

/** Moves the counted stretch into engine_ms, so the state written now carries the meter to date. */
export function foldEngine(state: PersistedState, now: number): PersistedState {
  const since = state.engine_counting_since;
  if (since === null) return state;
  return { ...state, engine_ms: state.engine_ms + Math.max(0, now - since), engine_counting_since: now };
}

/** Engine hours at `now`, including the stretch not yet written. */
export function engineHours(state: PersistedState, now: number): number {
  const since = state.engine_counting_since;
  return (state.engine_ms + (since === null ? 0 : Math.max(0, now - since))) / HOUR_MS;
}
