import type { simulator } from '@outpost/contracts';

export type ModeFlags = simulator.AllModeFlags;

/** The status always carries every network field; POST /api/config/network takes any subset. */
export type NetworkSettings = Required<simulator.NetworkConfig>;

/** The parts of GET /api/status (and WS status_update) this console reads. */
export interface Status {
  running: boolean;
  starting: boolean;
  mode: string | null;
  modes: ModeFlags;
  nmea: Record<string, boolean>;
  network: NetworkSettings;
  serial: { device: string | null; baudrate: number };
  airport_icao: string | null;
  lat: number;
  lon: number;
  altitude_ft: number;
  speed_kts: number;
  heading: number;
  target_altitude_ft: number;
  target_speed_kts: number;
  target_heading: number;
  banner: string | null;
  uptime_seconds?: number | null;
  started_at?: string | null;
  receiver?: Record<string, unknown>;
  flight_plan?: simulator.FlightPlanStatus;
  replay?: simulator.ReplayStatus;
}

export type Airport = simulator.Airport;

export type Runway = simulator.Runway;

export type SerialDevice = Pick<simulator.SerialDevice, 'device' | 'path' | 'name' | 'manufacturer'>;

export type Post = (path: string, body: unknown) => Promise<boolean>;
