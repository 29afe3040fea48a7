import { genset } from '@outpost/contracts';

/**
 * A report as the relay node would send it once the module is silent past its stale time: every
 * value null, `stale` set and `genset_unreachable` raised. Used when the relay node itself is gone,
 * so its last retained report cannot go on saying what the engine does.
 */
export function staleOf(r: genset.GensetState): genset.GensetState {
  return {
    ...r,
    reachable: false,
    fault: r.fault ?? 'connection',
    warnings: ['genset_unreachable'],
    ...genset.unknownReadings(),
    stale: true,
  };
}
