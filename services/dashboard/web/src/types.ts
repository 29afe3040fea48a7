/** The dashboard's fleet_state (GET /api/status and every /ws message). */
export interface FleetSimulator {
  id: string;
  online: boolean;
  available: boolean;
  sim_reachable: boolean | null;
  receiving_udp: boolean | null;
  uptime_seconds: number | null;
  mode: string | null;
  running: boolean | null;
  lat: number | null;
  lon: number | null;
  altitude_ft: number | null;
  speed_kts: number | null;
  heading: number | null;
  last_heartbeat_age_seconds: number | null;
  last_position_age_seconds: number | null;
  last_input_age_seconds: number | null;
  /** offline, no heartbeat (not rebroadcasting), stopped, no input, feed lost or online. */
  status: string;
  receiving_input: boolean | null;
  simulator_ip: string | null;
}

export interface FleetSite {
  id: string;
  controller_online: boolean;
  running: boolean | null;
  armed: boolean | null;
  relaynode_online: boolean | null;
  relay_on: boolean | null;
  failsafe_triggered: boolean | null;
  physical_safety_engaged: boolean | null;
}

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
