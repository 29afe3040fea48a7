import type { FleetSimulator } from '@outpost/contracts';

export type { FleetSimulator };

export interface FleetSite {
  id: string;
  controller_online: boolean;
  running: boolean | null;
  armed: boolean | null;
  relaynode_online: boolean | null;
  relay_on: boolean | null;
  failsafe_triggered: boolean | null;
  physical_safety_engaged: boolean | null;
  /** The controller's generator health alarm (fail to start, unexpected stop, failed exercise). */
  health_alarm?: 'fail_to_start' | 'unexpected_stop' | 'exercise_failed';
}

/** The dashboard's fleet_state (GET /api/status and every /ws message). */
export interface FleetState {
  type: 'fleet_state';
  timestamp_ms: number;
  simulators: FleetSimulator[];
  generators?: FleetSite[];
}

export function isFleetState(v: unknown): v is FleetState {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as FleetState).type === 'fleet_state' &&
    Array.isArray((v as FleetState).simulators)
  );
}
