import type { simulator } from '@outpost/contracts';

/** The parts of GET /api/status (and WS status_update) this console reads. */
export interface ModeFlags {
  standalone: boolean;
  sender: boolean;
  receiver: boolean;
  rebroadcaster: boolean;
  usb_output: boolean;
}

/** The status always carries every network field; POST /api/config/network takes any subset. */
export type NetworkSettings = Required<simulator.NetworkConfig>;

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

export interface Airport {
  icao: string;
  name: string;
  lat: number;
  lon: number;
  elevation_ft: number;
  /** False when the database has no elevation: selecting it starts at 0 ft. */
  elevation_known: boolean;
}

export interface SerialDevice {
  device: string;
  path: string;
  name: string;
  manufacturer: string | null;
}

export type Post = (path: string, body: unknown) => Promise<boolean>;
