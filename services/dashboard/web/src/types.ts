import type { FleetGeneratorSite, FleetSimulator, FleetState } from '@outpost/contracts';

export type { FleetSimulator, FleetState };
/** A generator site row of the fleet state. */
export type FleetSite = FleetGeneratorSite;

export function isFleetState(v: unknown): v is FleetState {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as FleetState).type === 'fleet_state' &&
    Array.isArray((v as FleetState).simulators)
  );
}
