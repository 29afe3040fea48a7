import { z } from 'zod';
import { UnixSeconds, UpdatedAt } from './common.js';

/**
 * The generator's own controller as the relay node reads it over Modbus (MQTT `relaynode/<id>/genset`,
 * retained). Every reading is nullable: null is "unknown" (the module does not implement it, reports a
 * sensor fault, or has stopped answering), never zero. While `stale` is true every value is null: a
 * module that went silent says nothing about the engine, so nothing here may be read as "stopped".
 */

/** GenComm page 3 register 772 (DSE): the module's mode selector. */
export const GensetMode = z.enum([
  'stop',
  'auto',
  'manual',
  'test_on_load',
  'auto_manual_restore',
  'user_configuration',
  'test_off_load',
  'off',
]);
export type GensetMode = z.infer<typeof GensetMode>;

/** GenComm register 1408 (DSE): where the module's start/stop sequence is. */
export const GensetEngineState = z.enum([
  'stopped',
  'pre_start',
  'warming_up',
  'running',
  'cooling_down',
  'post_run',
  'not_available',
]);
export type GensetEngineState = z.infer<typeof GensetEngineState>;

/** An alarm's level: GenComm alarm condition codes 2, 3 and 4; every other code is `none`. */
export const GensetAlarmLevel = z.enum(['none', 'warning', 'shutdown', 'electrical_trip']);
export type GensetAlarmLevel = z.infer<typeof GensetAlarmLevel>;

/** The register families of DSE modules: which alarm page they answer and how many alarms it holds. */
export const GensetFamily = z.enum([
  'dse_4xxx_old_alarms',
  'dse_45xx_mkii',
  'dse_61xx_mkii',
  'dse_7xxx_mkii',
  'dse_8xxx_mkii',
]);
export type GensetFamily = z.infer<typeof GensetFamily>;

/** Why the last poll failed (none: it answered). */
export const GensetFault = z.enum(['timeout', 'exception', 'crc', 'wrong_unit', 'connection', 'bad_data']);
export type GensetFault = z.infer<typeof GensetFault>;

/** Warnings the reader raises itself; the module's own alarms are in `alarms`. */
export const GensetWarning = z.enum(['genset_unreachable']);
export type GensetWarning = z.infer<typeof GensetWarning>;

const num = z.number().finite().nullable();
const count = z.number().int().nonnegative().nullable();

export const GensetIdentity = z
  .object({
    manufacturer_code: count,
    model_number: count,
    /** The model's name from the model table (`4520 MkII`); null for a model the table lacks. */
    model: z.string().max(64).nullable(),
    family: GensetFamily.nullable(),
    /** The module's 32-bit serial number, as text. */
    serial: z.string().max(16).nullable(),
  })
  .strict();
export type GensetIdentity = z.infer<typeof GensetIdentity>;

export const GensetInstruments = z
  .object({
    oil_pressure_kpa: num,
    coolant_temperature_c: num,
    oil_temperature_c: num,
    fuel_level_percent: num,
    battery_voltage_v: num,
    engine_speed_rpm: num,
    frequency_hz: num,
    /** L1, L2, L3 to neutral. */
    voltage_v: z.array(num).length(3),
    current_a: z.array(num).length(3),
    power_w: z.array(num).length(3),
    total_power_w: num,
    load_percent: num,
  })
  .strict();
export type GensetInstruments = z.infer<typeof GensetInstruments>;

export const GensetAccumulated = z
  .object({
    engine_run_time_s: count,
    energy_kwh: num,
    starts: count,
  })
  .strict();
export type GensetAccumulated = z.infer<typeof GensetAccumulated>;

export const GensetAlarm = z
  .object({
    /** Position in the module's alarm list, from 0. */
    index: z.number().int().nonnegative().max(255),
    /** GenComm's name for that position where it is known for the alarm page (`low_oil_pressure`). */
    name: z.string().max(64).nullable(),
    level: GensetAlarmLevel.exclude(['none']),
  })
  .strict();
export type GensetAlarm = z.infer<typeof GensetAlarm>;

export const GensetAlarms = z
  .object({
    /** The worst active level; null while unknown. */
    level: GensetAlarmLevel.nullable(),
    /** Active alarms only (warning, shutdown, electrical trip). */
    active: z.array(GensetAlarm).max(256),
  })
  .strict();
export type GensetAlarms = z.infer<typeof GensetAlarms>;

const stateFields = {
  /** The register preset the reader speaks: DSE GenComm, or the map file GENSET_MAP names. */
  protocol: z.enum(['dse_gencomm', 'register_map']),
  /** `dev`: the relay node's built-in fake module (DEV_MODE), no Modbus at all. */
  transport: z.enum(['tcp', 'rtu', 'dev']),
  /** The last poll got answers. */
  reachable: z.boolean(),
  fault: GensetFault.nullable(),
  warnings: z.array(GensetWarning).max(8),
  identity: GensetIdentity,
  running_source: z.enum(['status', 'rpm']).nullable(),
  instruments: GensetInstruments,
  accumulated: GensetAccumulated,
  alarms: GensetAlarms,
  /** When the module last answered a whole poll (Unix seconds); null: never since start. */
  last_read_at: UnixSeconds.nullable(),
  updated_at: UpdatedAt,
};

/**
 * `stale`: no answer for longer than the stale time, and every value is null. Silence is not
 * "stopped", so a stale message cannot carry a running flag, a mode or an engine state.
 */
export const GensetState = z.discriminatedUnion('stale', [
  z
    .object({
      ...stateFields,
      stale: z.literal(false),
      mode: GensetMode.nullable(),
      engine_state: GensetEngineState.nullable(),
      /** From the engine state, or from the engine speed where the module lacks register 1408. */
      running: z.boolean().nullable(),
    })
    .strict(),
  z
    .object({
      ...stateFields,
      stale: z.literal(true),
      mode: z.null(),
      engine_state: z.null(),
      running: z.null(),
    })
    .strict(),
]);
export type GensetState = z.infer<typeof GensetState>;

/** What a register of a GENSET_MAP file feeds: a field of the `genset` message (L1–L3 by phase). */
export const GensetMapMeaning = z.enum([
  'mode',
  'engine_state',
  'oil_pressure_kpa',
  'coolant_temperature_c',
  'oil_temperature_c',
  'fuel_level_percent',
  'battery_voltage_v',
  'engine_speed_rpm',
  'frequency_hz',
  'voltage_l1_v',
  'voltage_l2_v',
  'voltage_l3_v',
  'current_l1_a',
  'current_l2_a',
  'current_l3_a',
  'power_l1_w',
  'power_l2_w',
  'power_l3_w',
  'total_power_w',
  'load_percent',
  'engine_run_time_s',
  'energy_kwh',
  'starts',
]);
export type GensetMapMeaning = z.infer<typeof GensetMapMeaning>;

const GensetMapRegister = z
  .object({
    /** Holding register (function 3), 0-based as on the wire. */
    register: z.number().int().min(0).max(65535),
    /** 32-bit values take two registers, the high word first. */
    type: z.enum(['u16', 's16', 'u32', 's32']),
    /** Engineering value = raw × scale. */
    scale: z.number().positive().finite().default(1),
    unit: z.string().max(16).optional(),
    meaning: GensetMapMeaning,
    /** Raw values that mean "no number" (not fitted, sensor fault): unknown, never a value. */
    unknown: z.array(z.number().int()).max(16).optional(),
    /** mode and engine_state: raw code → the message's word; a code not listed is unknown. */
    values: z.record(z.string().regex(/^-?\d+$/), z.union([GensetMode, GensetEngineState])).optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const words: readonly string[] =
      r.meaning === 'mode'
        ? GensetMode.options
        : r.meaning === 'engine_state'
          ? GensetEngineState.options
          : [];
    if (words.length > 0 && !r.values) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: `required for ${r.meaning}` });
    }
    for (const [code, word] of Object.entries(r.values ?? {})) {
      if (!words.includes(word)) {
        ctx.addIssue({
          code: 'custom',
          path: ['values', code],
          message: `not a ${r.meaning} value: ${word}`,
        });
      }
    }
  });

/** A GENSET_MAP file: a controller's registers for the generic reader, instead of the DSE preset. */
export const GensetRegisterMap = z
  .object({
    /** Who the map is for, e.g. the controller's maker and model: logged at start. */
    name: z.string().min(1).max(100),
    /** Where the register facts come from, for whoever checks the map. */
    source: z.string().max(1000).optional(),
    registers: z
      .array(GensetMapRegister)
      .min(1)
      .max(64)
      .refine((rs) => new Set(rs.map((r) => r.meaning)).size === rs.length, 'each meaning at most once'),
  })
  .strict();
export type GensetRegisterMap = z.infer<typeof GensetRegisterMap>;

/**
 * Every reading unknown: what a report says once the module has been silent past its stale time (the
 * relay node), or once the relay node itself is gone (the controller). Silence is never "stopped".
 * A fresh copy each call, so a holder can change its own.
 */
export function unknownReadings(): Pick<
  Extract<GensetState, { stale: true }>,
  | 'identity'
  | 'mode'
  | 'engine_state'
  | 'running'
  | 'running_source'
  | 'instruments'
  | 'accumulated'
  | 'alarms'
> {
  const three = (): [null, null, null] => [null, null, null];
  return {
    identity: { manufacturer_code: null, model_number: null, model: null, family: null, serial: null },
    mode: null,
    engine_state: null,
    running: null,
    running_source: null,
    instruments: {
      oil_pressure_kpa: null,
      coolant_temperature_c: null,
      oil_temperature_c: null,
      fuel_level_percent: null,
      battery_voltage_v: null,
      engine_speed_rpm: null,
      frequency_hz: null,
      voltage_v: three(),
      current_a: three(),
      power_w: three(),
      total_power_w: null,
      load_percent: null,
    },
    accumulated: { engine_run_time_s: null, energy_kwh: null, starts: null },
    alarms: { level: null, active: [] },
  };
}
