import { readFileSync } from 'node:fs';
import { genset } from '@outpost/contracts';
import { ConfigError } from '@outpost/runtime';
import { rawValue, decodeRunning, type GensetReading } from './decode.js';
import { GensetReadError, ILLEGAL_DATA_ADDRESS, type RegisterIo } from './transport.js';

/**
 * The generic reader: a GENSET_MAP file (register, type, scale, unit, meaning) for a controller other
 * than a DSE module. Each register is read on its own; one the controller does not have ("illegal
 * data address") and a raw value the map lists as unknown are null, never a number. It knows no
 * identity and no alarms, and has no telemetry stop: the relay is the only path, start and stop.
 */

/** Reads and checks the map; a missing file or a bad map stops the start with a line naming GENSET_MAP. */
export function loadRegisterMap(path: string): genset.GensetRegisterMap {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError('GENSET_MAP', (err as Error).message);
  }
  const parsed = genset.GensetRegisterMap.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') ?? '';
    throw new ConfigError('GENSET_MAP', `${where ? `${where}: ` : ''}${issue?.message}`);
  }
  return parsed.data;
}

/** One poll through the map. A failure other than "no such register" fails the poll, as with DSE. */
export async function readMapped(io: RegisterIo, map: genset.GensetRegisterMap): Promise<GensetReading> {
  const values = new Map<genset.GensetMapMeaning, number | string | null>();
  for (const r of map.registers) {
    const wide = r.type === 'u32' || r.type === 's32';
    let words: number[] | null;
    try {
      words = await io.readHolding(r.register, wide ? 2 : 1);
    } catch (err) {
      if (!(err instanceof GensetReadError && err.modbusCode === ILLEGAL_DATA_ADDRESS)) throw err;
      words = null;
    }
    const raw = words ? rawValue({ address: 0, width: r.type, divisor: 1 }, { start: 0, words }) : null;
    if (raw === null || r.unknown?.includes(raw)) values.set(r.meaning, null);
    else if (r.values) values.set(r.meaning, r.values[String(raw)] ?? null);
    // Rounded to what the scale can say, so 0.1 × 2305 is 230.5 and not 230.50000000000003.
    else values.set(r.meaning, Number((raw * r.scale).toPrecision(12)));
  }
  const num = (m: genset.GensetMapMeaning) => {
    const v = values.get(m);
    return typeof v === 'number' ? v : null;
  };
  const phases = (kind: 'voltage' | 'current' | 'power', unit: 'v' | 'a' | 'w') =>
    [1, 2, 3].map((l) => num(`${kind}_l${l}_${unit}` as genset.GensetMapMeaning));
  const engineState = (values.get('engine_state') ?? null) as genset.GensetEngineState | null;
  const running = decodeRunning(engineState, num('engine_speed_rpm'));
  return {
    identity: { manufacturer_code: null, model_number: null, model: null, family: null, serial: null },
    mode: (values.get('mode') ?? null) as genset.GensetMode | null,
    engine_state: engineState,
    running: running.running,
    running_source: running.source,
    instruments: {
      oil_pressure_kpa: num('oil_pressure_kpa'),
      coolant_temperature_c: num('coolant_temperature_c'),
      oil_temperature_c: num('oil_temperature_c'),
      fuel_level_percent: num('fuel_level_percent'),
      battery_voltage_v: num('battery_voltage_v'),
      engine_speed_rpm: num('engine_speed_rpm'),
      frequency_hz: num('frequency_hz'),
      voltage_v: phases('voltage', 'v'),
      current_a: phases('current', 'a'),
      power_w: phases('power', 'w'),
      total_power_w: num('total_power_w'),
      load_percent: num('load_percent'),
    },
    accumulated: {
      engine_run_time_s: num('engine_run_time_s'),
      energy_kwh: num('energy_kwh'),
      starts: num('starts'),
    },
    alarms: { level: null, active: [] },
  };
}
