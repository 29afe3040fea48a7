import type { GeneratorStateName } from '@outpost/contracts';

export type PhaseEvent = 'start' | 'started' | 'start_failed' | 'stop' | 'stopped';

/** IDLE → STARTING → RUNNING → STOPPING → IDLE; a start refused after STARTING falls back to IDLE. */
export const PHASE_TABLE: Readonly<
  Record<GeneratorStateName, Partial<Record<PhaseEvent, GeneratorStateName>>>
> = {
  idle: { start: 'starting' },
  starting: { started: 'running', start_failed: 'idle' },
  running: { stop: 'stopping' },
  stopping: { stopped: 'idle' },
};

export function nextPhase(phase: GeneratorStateName, event: PhaseEvent): GeneratorStateName {
  const next = PHASE_TABLE[phase][event];
  if (!next) throw new Error(`invalid generator transition: ${phase} --${event}-->`);
  return next;
}
