import type { simulator } from '@outpost/contracts';
import type { EngineRates } from '../domain/engine.js';

/** The API's ramp-rate names (those of the environment variables) to the engine's. */
export function engineRates(update: simulator.RampRates): Partial<EngineRates> {
  return {
    altitudeFtPer2Sec: update.altitude_rate_ft_per_2sec,
    airspeedKtsPerSec: update.airspeed_rate_kts_per_sec,
    headingDegPerSec: update.heading_rate_deg_per_sec,
  };
}

export function ratesView(r: EngineRates): Required<simulator.RampRates> {
  return {
    altitude_rate_ft_per_2sec: r.altitudeFtPer2Sec,
    airspeed_rate_kts_per_sec: r.airspeedKtsPerSec,
    heading_rate_deg_per_sec: r.headingDegPerSec,
  };
}
