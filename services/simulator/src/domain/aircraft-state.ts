/** Where the aircraft is and how it moves, as the flight-plan engine and the track replay both produce it. */
export interface AircraftState {
  lat: number;
  lon: number;
  altitude_ft: number;
  speed_kts: number;
  /** Degrees true in (0, 360]. */
  heading: number;
  vertical_fpm: number;
}
