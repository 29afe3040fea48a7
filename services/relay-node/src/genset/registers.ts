/**
 * Deep Sea Electronics GenComm registers the genset reader uses: facts only, each checked against a
 * published source.
 *
 * Sources:
 * - [GC] DSE, "GenComm standard for use with generating set control equipment" (v1.29 as printed in
 *   the DSE 550/555/5210/5220 GenComm protocol manual; the page/offset layout is the same in v1.45,
 *   v2.38 and v2.210): page N register offset K is Modbus holding register N × 256 + K; function 3
 *   reads, function 16 writes; sentinel values; page 4 and page 7 tables; alarm condition codes;
 *   page 16 system control registers.
 * - [GK] DSE 056-051 "GenComm control keys": the key of each system control function and its
 *   complement (telemetry stop 35733 / 29802).
 * - [W] DSE 890 manual, custom instruments example: oil temperature at page 4 offset 2, signed 16 bit.
 * - [V] victronenergy/dbus-modbus-client `dse.py` (the registers a Victron GX reads): the model
 *   table, the control mode codes of 772, the engine state codes of 1408, page 6 total power and
 *   load, the Named Alarm Conditions page 154 and the alarm counts per family.
 */

/** GenComm page number → first register of the page. */
export const page = (n: number, offset = 0): number => n * 256 + offset;

export type Width = 'u16' | 's16' | 'u32' | 's32';

export interface RegisterDef {
  readonly address: number;
  readonly width: Width;
  /** Engineering value = raw ÷ divisor (a divisor, not a 0.1 factor: 2305 ÷ 10 is exactly 230.5). */
  readonly divisor: number;
}

const r = (address: number, width: Width, divisor = 1): RegisterDef => ({ address, width, divisor });

/** Page 3, generating set status: [GC] offsets 0–3; [V] 772 control mode. */
export const IDENT = {
  manufacturerCode: r(page(3, 0), 'u16'), // 768
  modelNumber: r(page(3, 1), 'u16'), // 769
  serial: r(page(3, 2), 'u32'), // 770–771
  controlMode: r(page(3, 4), 'u16'), // 772
} as const;
export const IDENT_BLOCK = { start: page(3, 0), count: 5 } as const;

/** Page 4, basic instrumentation [GC] (oil temperature [W]); 32-bit values high word first. */
export const PAGE4 = {
  oilPressureKpa: r(page(4, 0), 'u16'), // 1024, kPa
  coolantTemperatureC: r(page(4, 1), 's16'), // 1025, °C signed
  oilTemperatureC: r(page(4, 2), 's16'), // 1026, °C signed
  fuelLevelPercent: r(page(4, 3), 'u16'), // 1027, %
  batteryVoltageV: r(page(4, 5), 'u16', 10), // 1029, 0.1 V ([GC] "battery voltage"; 1028 is the charge alternator)
  engineSpeedRpm: r(page(4, 6), 'u16'), // 1030, RPM
  frequencyHz: r(page(4, 7), 'u16', 10), // 1031, 0.1 Hz
  voltageV: [r(page(4, 8), 'u32', 10), r(page(4, 10), 'u32', 10), r(page(4, 12), 'u32', 10)], // 1032–1037, L-N
  currentA: [r(page(4, 20), 'u32', 10), r(page(4, 22), 'u32', 10), r(page(4, 24), 'u32', 10)], // 1044–1049
  powerW: [r(page(4, 28), 's32'), r(page(4, 30), 's32'), r(page(4, 32), 's32')], // 1052–1057, W signed
} as const;
export const PAGE4_BLOCK = { start: page(4, 0), count: 34 } as const;

/** Page 5 offset 128 [V]: the engine state; not every module implements it. */
export const ENGINE_STATE = r(page(5, 128), 'u16'); // 1408

/** Page 6, derived instrumentation [V]: total power (W, signed 32) and load (0.1 %, signed). */
export const TOTAL_POWER_W = r(page(6, 0), 's32'); // 1536
export const LOAD_PERCENT = r(page(6, 22), 's16', 10); // 1558

/** Page 7, accumulated instrumentation [GC]: offsets 6–7 run time (s), 8–9 kWh (0.1), 16–17 starts. */
export const PAGE7 = {
  engineRunTimeS: r(page(7, 6), 'u32'), // 1798
  energyKwh: r(page(7, 8), 'u32', 10), // 1800
  starts: r(page(7, 16), 'u32'), // 1808
} as const;
export const PAGE7_BLOCK = { start: page(7, 6), count: 12 } as const;

/**
 * Page 16, control registers [GC]: offsets 0–7 flag the system control functions the module supports;
 * a key goes to offset 8 and its complement (65535 − key) to offset 9 in one function 16 write [GC][GK].
 */
export const SCF_FLAGS_BLOCK = { start: page(16, 0), count: 8 } as const; // 4096–4103
export const SCF_KEY_REGISTER = page(16, 8); // 4104 (4105: the complement)
/** System control function codes: key = 35700 + code [GK]. */
export const SCF_KEY_BASE = 35700;
export const SCF_TELEMETRY_STOP = 33; // key 35733

/** Sentinels [GC][V]: −1 … −8 in the register's width mean "no number" (unimplemented, over/under range, transducer fault, bad data, …). */
export const SENTINEL_COUNT = 8;

/** Alarms: [GC] condition codes (4 bits each, four to a register, the first in the top nibble [V]). */
export const ALARM_CODE = { warning: 2, shutdown: 3, electricalTrip: 4 } as const;

/** The old alarm system, page 8 offset 1 on [V]; the first names from [GC]'s alarm string pages. */
export const OLD_ALARMS = { start: page(8, 1), count: 25 } as const; // 2049
export const OLD_ALARM_NAMES: readonly (string | null)[] = [
  'emergency_stop',
  'low_oil_pressure',
  'high_coolant_temperature',
  null,
  'under_speed',
  'over_speed',
  'fail_to_start',
  'fail_to_come_to_rest',
  'loss_of_speed_sensing',
  'generator_low_voltage',
  'generator_high_voltage',
];

/** Named Alarm Conditions, page 154 offset 1 on [V]; their order differs by family, so no names. */
export const NAMED_ALARMS_START = page(154, 1); // 39425
