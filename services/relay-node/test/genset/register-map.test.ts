import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { genset as contract } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GensetPoller } from '../../src/genset/poller.js';
import { readGensetSettings } from '../../src/genset/settings.js';
import { ModbusSerialIo } from '../../src/genset/transport.js';
import { silentLog } from '../helpers.js';
import { type FakeDse, startFakeDse, words } from './fake-dse.js';

const UNIT = 7;

/** A made-up controller's map, on registers a DSE module does not use, so only the map can find them. */
const MAP = {
  name: 'Example controller',
  registers: [
    { register: 100, type: 'u16', meaning: 'mode', values: { '0': 'stop', '1': 'auto', '2': 'manual' } },
    { register: 101, type: 'u16', unit: 'rpm', meaning: 'engine_speed_rpm' },
    { register: 102, type: 'u16', scale: 0.1, unit: 'kPa', meaning: 'oil_pressure_kpa' },
    { register: 103, type: 's16', unit: '°C', meaning: 'coolant_temperature_c', unknown: [32767] },
    { register: 104, type: 'u32', scale: 3600, unit: 'h', meaning: 'engine_run_time_s' },
    { register: 106, type: 'u16', scale: 0.1, unit: 'V', meaning: 'voltage_l2_v' },
    { register: 107, type: 's16', unit: '°C', meaning: 'oil_temperature_c' },
    { register: 110, type: 'u16', unit: '%', meaning: 'fuel_level_percent' },
  ],
};

describe('GENSET_MAP: a register map file instead of the DSE preset', () => {
  let dir: string;
  let dse: FakeDse;
  const file = (name: string, body: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'genset-map-'));
    dse = await startFakeDse({
      unit: UNIT,
      registers: words({
        100: { v: 2, width: 'u16' },
        101: { v: 1500, width: 'u16' },
        102: { v: 3805, width: 'u16' },
        103: { v: 32767, width: 's16' },
        104: { v: 250, width: 'u32' },
        106: { v: 2305, width: 'u16' },
        107: { v: -12, width: 's16' },
      }),
      missing: [110],
    });
  });
  afterAll(async () => {
    await dse?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the mapped registers over Modbus TCP into the genset message', async () => {
    const settings = readGensetSettings({
      GENSET_TRANSPORT: 'tcp',
      GENSET_HOST: '127.0.0.1',
      GENSET_PORT: String(dse.port),
      GENSET_UNIT_ID: String(UNIT),
      GENSET_MAP: file('map.json', MAP),
    });
    if (!settings) throw new Error('no settings');
    const clock = new ManualClock();
    const poller = new GensetPoller({ io: new ModbusSerialIo(settings), settings, clock, log: silentLog });
    poller.start();
    try {
      await poller.settled();
      const s = poller.state();
      expect(contract.GensetState.parse(s)).toEqual(s);
      expect(s).toMatchObject({
        protocol: 'register_map',
        reachable: true,
        stale: false,
        mode: 'manual',
        engine_state: null,
        // No engine state in the map: running from the speed.
        running: true,
        running_source: 'rpm',
        identity: { model: null, family: null },
        alarms: { level: null, active: [] },
        accumulated: { engine_run_time_s: 900_000, energy_kwh: null, starts: null },
      });
      expect(s.instruments).toMatchObject({
        engine_speed_rpm: 1500,
        oil_pressure_kpa: 380.5,
        // Listed as unknown in the map, and a register the controller does not have: null, never a number.
        coolant_temperature_c: null,
        fuel_level_percent: null,
        oil_temperature_c: -12,
        voltage_v: [null, 230.5, null],
        frequency_hz: null,
      });
    } finally {
      await poller.stop();
    }
  });

  it('the shipped ComAp InteliLite4 map loads and reads a controller laid out as it says', async () => {
    dse.set({
      registers: words({
        1382: { v: 2, width: 'u16' }, // AUTO
        1298: { v: 8, width: 'u16' }, // Loaded
        1004: { v: 1500, width: 'u16' },
        1006: { v: -32768, width: 's16' }, // invalid: unknown
        1008: { v: 410, width: 's16' },
        1013: { v: 12_345, width: 'u32' }, // 6 s units
        1036: { v: 500, width: 'u16' },
        1037: { v: 231, width: 'u16' },
        1020: { v: 12, width: 's16' }, // kW
        1055: { v: 64, width: 'u16' },
      }),
      missing: [],
    });
    const path = fileURLToPath(new URL('../../maps/comap-intelilite4.json', import.meta.url));
    const env = { GENSET_TRANSPORT: 'tcp', GENSET_HOST: '127.0.0.1', GENSET_PORT: String(dse.port) };
    const settings = readGensetSettings({ ...env, GENSET_UNIT_ID: String(UNIT), GENSET_MAP: path });
    if (!settings) throw new Error('no settings');
    const poller = new GensetPoller({
      io: new ModbusSerialIo(settings),
      settings,
      clock: new ManualClock(),
      log: silentLog,
    });
    poller.start();
    try {
      await poller.settled();
      const s = poller.state();
      expect(contract.GensetState.parse(s)).toEqual(s);
      expect(s).toMatchObject({
        protocol: 'register_map',
        mode: 'auto',
        engine_state: 'running',
        running: true,
        running_source: 'status',
        accumulated: { engine_run_time_s: 74_070 },
      });
      expect(s.instruments).toMatchObject({
        engine_speed_rpm: 1500,
        coolant_temperature_c: null,
        oil_pressure_kpa: 410,
        frequency_hz: 50,
        total_power_w: 12_000,
        fuel_level_percent: 64,
      });
      expect(s.instruments.voltage_v[0]).toBe(231);
    } finally {
      await poller.stop();
    }
  });

  it('a missing or bad map stops the start with a line naming GENSET_MAP', () => {
    const env = (path: string) => ({ GENSET_TRANSPORT: 'tcp', GENSET_HOST: '127.0.0.1', GENSET_MAP: path });
    expect(() => readGensetSettings(env(join(dir, 'absent.json')))).toThrow(/GENSET_MAP/);
    expect(() => readGensetSettings(env(file('broken.json', '{"name": ')))).toThrow(/GENSET_MAP/);
    const noValues = { name: 'x', registers: [{ register: 1, type: 'u16', meaning: 'mode' }] };
    expect(() => readGensetSettings(env(file('novalues.json', noValues)))).toThrow(
      'Invalid environment variable GENSET_MAP: registers.0.values: required for mode',
    );
    const badWord = {
      name: 'x',
      registers: [{ register: 1, type: 'u16', meaning: 'engine_state', values: { '1': 'auto' } }],
    };
    expect(() => readGensetSettings(env(file('badword.json', badWord)))).toThrow(/not a engine_state value/);
    const twice = {
      name: 'x',
      registers: [
        { register: 1, type: 'u16', meaning: 'starts' },
        { register: 2, type: 'u16', meaning: 'starts' },
      ],
    };
    expect(() => readGensetSettings(env(file('twice.json', twice)))).toThrow(/each meaning at most once/);
    const typo = { name: 'x', registers: [{ register: 1, type: 'u16', meaning: 'rpm' }] };
    expect(() => readGensetSettings(env(file('typo.json', typo)))).toThrow(/GENSET_MAP: registers.0.meaning/);
  });
});
