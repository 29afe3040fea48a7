import type { ExpectedLoad } from '@outpost/contracts';
import type { FuelSettings } from './types.js';

/** Gallons per hour for a load setting; the rate is fixed when a run starts. */
export function rateFor(settings: FuelSettings, load: ExpectedLoad = settings.expected_load): number {
  return load === 100 ? settings.gph_at_100 : settings.gph_at_50;
}

/** Estimated fuel used = (runtime_seconds / 3600) x rate, rounded to 1/1000 gallon. */
export function estimateFuel(runtimeSeconds: number, gallonsPerHour: number): number {
  if (runtimeSeconds <= 0 || gallonsPerHour <= 0) return 0;
  return Math.round((runtimeSeconds / 3600) * gallonsPerHour * 1000) / 1000;
}
