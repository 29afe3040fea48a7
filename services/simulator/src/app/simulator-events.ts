import type { simulator } from '@outpost/contracts';
import type { EngineState } from '../domain/engine.js';

export interface PositionData extends EngineState {
  airport_icao: string | null;
  receiving: boolean | null;
  timestamp_ms: number;
  /** While a flight plan or a replay exists: its progress, so a console follows it live. */
  flight_plan?: simulator.FlightPlanStatus;
  replay?: simulator.ReplayStatus;
}

/** What AUTO_START_* did at boot; shown in the status and /health so a stopped service says why. */
export interface AutoStartState {
  mode: string;
  /** `running`, `retrying` (a server error at start, tried again), `not started` (a value is missing). */
  state: 'running' | 'retrying' | 'not started';
  reason: string | null;
}

export interface SimulatorEvents {
  status: [Record<string, unknown>];
  nmea: [string[]];
  position: [PositionData];
}
