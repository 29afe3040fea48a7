import type { genset } from '@outpost/contracts';
import { NAMED_ALARMS_START, OLD_ALARMS } from './registers.js';

/**
 * DSE models by manufacturer code and model number (registers 768 and 769; GenComm: the two identify a
 * product only together). The table and each family's alarm page and length are those of Victron's
 * dbus-modbus-client `dse.py`.
 */
export interface ModelInfo {
  readonly model: string;
  readonly family: genset.GensetFamily;
}

export interface FamilyInfo {
  /** First register of the alarm list and how many registers (four alarms each) it spans. */
  readonly alarmStart: number;
  readonly alarmRegisters: number;
  /** `old`: page 8, whose first alarms have GenComm names; `named`: page 154, order by family. */
  readonly alarmSystem: 'old' | 'named';
}

const DSE = 1;

const MODELS: ReadonlyMap<string, ModelInfo> = new Map([
  [`${DSE}-4623`, { model: '4620/4623', family: 'dse_4xxx_old_alarms' }],
  [`${DSE}-6121`, { model: '6120', family: 'dse_4xxx_old_alarms' }],
  [`${DSE}-32808`, { model: '4510 MkII', family: 'dse_45xx_mkii' }],
  [`${DSE}-32807`, { model: '4520 MkII', family: 'dse_45xx_mkii' }],
  [`${DSE}-32800`, { model: '6110 MkII', family: 'dse_61xx_mkii' }],
  [`${DSE}-32859`, { model: '6120 MkIII', family: 'dse_61xx_mkii' }],
  [`${DSE}-32840`, { model: '7310 MkII', family: 'dse_7xxx_mkii' }],
  [`${DSE}-32845`, { model: '7410 MkII', family: 'dse_7xxx_mkii' }],
  [`${DSE}-32846`, { model: '7420 MkII', family: 'dse_7xxx_mkii' }],
  [`${DSE}-32832`, { model: '8610 MkII', family: 'dse_8xxx_mkii' }],
  [`${DSE}-32833`, { model: '8620 MkII', family: 'dse_8xxx_mkii' }],
  [`${DSE}-32834`, { model: '8660 MkII', family: 'dse_8xxx_mkii' }],
]);

export const FAMILIES: Readonly<Record<genset.GensetFamily, FamilyInfo>> = {
  dse_4xxx_old_alarms: { alarmStart: OLD_ALARMS.start, alarmRegisters: OLD_ALARMS.count, alarmSystem: 'old' },
  dse_45xx_mkii: { alarmStart: NAMED_ALARMS_START, alarmRegisters: 11, alarmSystem: 'named' },
  dse_61xx_mkii: { alarmStart: NAMED_ALARMS_START, alarmRegisters: 15, alarmSystem: 'named' },
  dse_7xxx_mkii: { alarmStart: NAMED_ALARMS_START, alarmRegisters: 20, alarmSystem: 'named' },
  dse_8xxx_mkii: { alarmStart: NAMED_ALARMS_START, alarmRegisters: 39, alarmSystem: 'named' },
};

/** The 4520 MkII flags telemetry start/stop as supported yet ignores them (noted in `dse.py`). */
const TELEMETRY_STOP_IGNORED = new Set([`${DSE}-32807`]);

export function lookupModel(manufacturerCode: number | null, modelNumber: number | null): ModelInfo | null {
  if (manufacturerCode === null || modelNumber === null) return null;
  return MODELS.get(`${manufacturerCode}-${modelNumber}`) ?? null;
}

export function telemetryStopIgnored(manufacturerCode: number, modelNumber: number): boolean {
  return TELEMETRY_STOP_IGNORED.has(`${manufacturerCode}-${modelNumber}`);
}
