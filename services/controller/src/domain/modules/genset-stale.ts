import type { genset } from '@outpost/contracts';

const three = [null, null, null];

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
    identity: { manufacturer_code: null, model_number: null, model: null, family: null, serial: null },
    running_source: null,
    instruments: {
      oil_pressure_kpa: null,
      coolant_temperature_c: null,
      oil_temperature_c: null,
      fuel_level_percent: null,
      battery_voltage_v: null,
      engine_speed_rpm: null,
      frequency_hz: null,
      voltage_v: [...three],
      current_a: [...three],
      power_w: [...three],
      total_power_w: null,
      load_percent: null,
    },
    accumulated: { engine_run_time_s: null, energy_kwh: null, starts: null },
    alarms: { level: null, active: [] },
    stale: true,
    mode: null,
    engine_state: null,
    running: null,
  };
}
