import type { genset } from '@outpost/contracts';

const three = <T>(v: T): T[] => [v, v, v];

/** A 4520 MkII in Auto, stopped, no alarms: what the relay node publishes while the module answers. */
export function gensetReport(
  over: Partial<Extract<genset.GensetState, { stale: false }>> = {},
): genset.GensetState {
  return {
    protocol: 'dse_gencomm',
    transport: 'tcp',
    reachable: true,
    fault: null,
    warnings: [],
    identity: {
      manufacturer_code: 1,
      model_number: 4520,
      model: '4520 MkII',
      family: 'dse_45xx_mkii',
      serial: '123456',
    },
    running_source: 'status',
    instruments: {
      oil_pressure_kpa: 0,
      coolant_temperature_c: 21,
      oil_temperature_c: null,
      fuel_level_percent: 80,
      battery_voltage_v: 12.8,
      engine_speed_rpm: 0,
      frequency_hz: 0,
      voltage_v: three(0),
      current_a: three(0),
      power_w: three(0),
      total_power_w: 0,
      load_percent: 0,
    },
    accumulated: { engine_run_time_s: 3600 * 120, energy_kwh: 5400, starts: 310 },
    alarms: { level: 'none', active: [] },
    last_read_at: 1_790_000_000,
    updated_at: 1_790_000_000,
    stale: false,
    mode: 'auto',
    engine_state: 'stopped',
    running: false,
    ...over,
  };
}

/** The module silent past the stale time: every value unknown, nothing about the engine. */
export function staleGensetReport(): genset.GensetState {
  const r = gensetReport();
  return {
    ...r,
    reachable: false,
    fault: 'timeout',
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
      voltage_v: three(null),
      current_a: three(null),
      power_w: three(null),
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
