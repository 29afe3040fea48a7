import type { genset } from '@outpost/contracts';
import { lookupModel } from './models.js';
import {
  ALARM_CODE,
  ENGINE_STATE,
  IDENT,
  LOAD_PERCENT,
  OLD_ALARM_NAMES,
  PAGE4,
  PAGE7,
  type RegisterDef,
  SCF_KEY_BASE,
  SENTINEL_COUNT,
  TOTAL_POWER_W,
} from './registers.js';

/**
 * GenComm words → values, as pure functions. Every "no number" answer (a sentinel, a register outside
 * what was read, a code the table lacks) is null: unknown, never zero.
 */

/** Holding registers read in one request: `words[i]` is register `start + i`. */
export interface Block {
  readonly start: number;
  readonly words: readonly number[];
}

const TOP = { u16: 0xffff, s16: 0x7fff, u32: 0xffffffff, s32: 0x7fffffff } as const;

/** The raw integer of a register, sentinels included; null when the block does not cover it. */
export function rawValue(def: RegisterDef, block: Block | null): number | null {
  if (!block) return null;
  const i = def.address - block.start;
  const wide = def.width === 'u32' || def.width === 's32';
  if (i < 0 || i + (wide ? 2 : 1) > block.words.length) return null;
  const hi = (block.words[i] as number) & 0xffff;
  if (!wide) return def.width === 's16' && hi >= 0x8000 ? hi - 0x10000 : hi;
  // GenComm 32-bit values: the most significant word at the lower address.
  const u = hi * 0x10000 + ((block.words[i + 1] as number) & 0xffff);
  return def.width === 's32' && u >= 0x80000000 ? u - 0x100000000 : u;
}

/** GenComm's sentinels: −1 … −8 in the register's width (for a signed one, the top positive values). */
export function isSentinel(def: RegisterDef, raw: number): boolean {
  const top = TOP[def.width];
  return raw > top - SENTINEL_COUNT && raw <= top;
}

/** The engineering value of a register, or null (not read, or a sentinel). */
export function decodeRegister(def: RegisterDef, block: Block | null): number | null {
  const raw = rawValue(def, block);
  if (raw === null || isSentinel(def, raw)) return null;
  return raw / def.divisor;
}

const MODES: readonly genset.GensetMode[] = [
  'stop',
  'auto',
  'manual',
  'test_on_load',
  'auto_manual_restore',
  'user_configuration',
  'test_off_load',
  'off',
];

export function decodeMode(code: number | null): genset.GensetMode | null {
  return code === null ? null : (MODES[code] ?? null);
}

const ENGINE_STATES: Readonly<Record<number, genset.GensetEngineState>> = {
  0: 'stopped',
  1: 'pre_start',
  2: 'warming_up',
  3: 'running',
  4: 'cooling_down',
  5: 'stopped',
  6: 'post_run',
  15: 'not_available',
};

export function decodeEngineState(code: number | null): genset.GensetEngineState | null {
  return code === null ? null : (ENGINE_STATES[code] ?? null);
}

/** Engine speed over which an engine without register 1408 counts as running (`dse.py`'s 100 RPM). */
export const RUNNING_RPM = 100;

export interface Running {
  running: boolean | null;
  source: 'status' | 'rpm' | null;
}

/**
 * Whether the engine turns: from the engine state where the module has one (warming up, running and
 * cooling down turn; pre-start is the preheat, before cranking), else from the speed. Not available or
 * no speed: unknown.
 */
export function decodeRunning(state: genset.GensetEngineState | null, rpm: number | null): Running {
  if (state !== null) {
    if (state === 'not_available') return { running: null, source: 'status' };
    return { running: ['warming_up', 'running', 'cooling_down'].includes(state), source: 'status' };
  }
  if (rpm === null) return { running: null, source: null };
  return { running: rpm > RUNNING_RPM, source: 'rpm' };
}

const LEVEL_OF: Readonly<Record<number, genset.GensetAlarmLevel>> = {
  [ALARM_CODE.warning]: 'warning',
  [ALARM_CODE.shutdown]: 'shutdown',
  [ALARM_CODE.electricalTrip]: 'electrical_trip',
};
/** A shutdown stops the engine at once; an electrical trip opens the breaker first. */
const SEVERITY: readonly genset.GensetAlarmLevel[] = ['none', 'warning', 'electrical_trip', 'shutdown'];

/** Four 4-bit alarm condition codes per register, the first alarm in the top nibble. */
export function alarmCodes(words: readonly number[]): number[] {
  return words.flatMap((w) => [(w >> 12) & 15, (w >> 8) & 15, (w >> 4) & 15, w & 15]);
}

export function decodeAlarms(
  words: readonly number[] | null,
  system: 'old' | 'named' | null,
): genset.GensetAlarms {
  if (words === null) return { level: null, active: [] };
  const active: genset.GensetAlarm[] = [];
  alarmCodes(words).forEach((code, index) => {
    const level = LEVEL_OF[code];
    if (!level || level === 'none') return;
    active.push({ index, name: system === 'old' ? (OLD_ALARM_NAMES[index] ?? null) : null, level });
  });
  const level = active.reduce<genset.GensetAlarmLevel>(
    (worst, a) => (SEVERITY.indexOf(a.level) > SEVERITY.indexOf(worst) ? a.level : worst),
    'none',
  );
  return { level, active };
}

/** Whether the page 16 flags list a system control function (`dse.py`: code 0 in the top bit). */
export function scfSupported(flags: readonly number[], code: number): boolean {
  const word = flags[code >> 4];
  if (word === undefined) return false;
  return ((word >> (15 - (code % 16))) & 1) === 1;
}

/** The two words a system control function is asked with: its key and 65535 − key. */
export function scfKeyWords(code: number): [number, number] {
  const key = SCF_KEY_BASE + code;
  return [key, 0xffff - key];
}

export function decodeIdentity(ident: Block | null): genset.GensetIdentity {
  const manufacturer = decodeRegister(IDENT.manufacturerCode, ident);
  const modelNumber = decodeRegister(IDENT.modelNumber, ident);
  const serial = rawValue(IDENT.serial, ident);
  const info = lookupModel(manufacturer, modelNumber);
  return {
    manufacturer_code: manufacturer,
    model_number: modelNumber,
    model: info?.model ?? null,
    family: info?.family ?? null,
    serial: serial === null ? null : String(serial),
  };
}

export function decodeInstruments(
  page4: Block | null,
  totalPower: Block | null,
  load: Block | null,
): genset.GensetInstruments {
  const v = (def: RegisterDef, b: Block | null = page4) => decodeRegister(def, b);
  return {
    oil_pressure_kpa: v(PAGE4.oilPressureKpa),
    coolant_temperature_c: v(PAGE4.coolantTemperatureC),
    oil_temperature_c: v(PAGE4.oilTemperatureC),
    fuel_level_percent: v(PAGE4.fuelLevelPercent),
    battery_voltage_v: v(PAGE4.batteryVoltageV),
    engine_speed_rpm: v(PAGE4.engineSpeedRpm),
    frequency_hz: v(PAGE4.frequencyHz),
    voltage_v: PAGE4.voltageV.map((d) => v(d)),
    current_a: PAGE4.currentA.map((d) => v(d)),
    power_w: PAGE4.powerW.map((d) => v(d)),
    total_power_w: v(TOTAL_POWER_W, totalPower),
    load_percent: v(LOAD_PERCENT, load),
  };
}

export function decodeAccumulated(page7: Block | null): genset.GensetAccumulated {
  return {
    engine_run_time_s: decodeRegister(PAGE7.engineRunTimeS, page7),
    energy_kwh: decodeRegister(PAGE7.energyKwh, page7),
    starts: decodeRegister(PAGE7.starts, page7),
  };
}

/** Every block one poll reads; null where the module answered "no such register". */
export interface PollBlocks {
  ident: Block;
  page4: Block;
  engineState: Block | null;
  totalPower: Block | null;
  load: Block | null;
  page7: Block | null;
  alarms: Block | null;
}

export type GensetReading = Pick<
  genset.GensetState,
  | 'identity'
  | 'mode'
  | 'engine_state'
  | 'running'
  | 'running_source'
  | 'instruments'
  | 'accumulated'
  | 'alarms'
>;

/** One poll's words → the reading the message carries. */
export function decodePoll(b: PollBlocks): GensetReading {
  const identity = decodeIdentity(b.ident);
  const instruments = decodeInstruments(b.page4, b.totalPower, b.load);
  const engineState = decodeEngineState(decodeRegister(ENGINE_STATE, b.engineState));
  const running = decodeRunning(engineState, instruments.engine_speed_rpm);
  const system =
    identity.family === null ? null : identity.family === 'dse_4xxx_old_alarms' ? 'old' : 'named';
  return {
    identity,
    mode: decodeMode(decodeRegister(IDENT.controlMode, b.ident)),
    engine_state: engineState,
    running: running.running,
    running_source: running.source,
    instruments,
    accumulated: decodeAccumulated(b.page7),
    alarms: decodeAlarms(b.alarms?.words ?? null, system),
  };
}
