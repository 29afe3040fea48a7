import { describe, expect, it } from 'vitest';
import {
  alarmCodes,
  decodeAlarms,
  decodeEngineState,
  decodeIdentity,
  decodeMode,
  decodeRegister,
  decodeRunning,
  scfKeyWords,
  scfSupported,
} from '../../src/genset/decode.js';
import type { RegisterDef } from '../../src/genset/registers.js';

const at = (width: RegisterDef['width'], divisor = 1): RegisterDef => ({ address: 100, width, divisor });
const block = (...words: number[]) => ({ start: 100, words });

describe('GenComm decoding', () => {
  it('reads −1 … −8 of each width as unknown and the values next to them as numbers', () => {
    for (let k = 1; k <= 8; k++) {
      expect(decodeRegister(at('u16'), block(0x10000 - k))).toBeNull();
      expect(decodeRegister(at('s16'), block(0x8000 - k))).toBeNull();
      expect(decodeRegister(at('u32'), block(0xffff, 0x10000 - k))).toBeNull();
      expect(decodeRegister(at('s32'), block(0x7fff, 0x10000 - k))).toBeNull();
    }
    expect(decodeRegister(at('u16'), block(0xfff7))).toBe(0xfff7);
    expect(decodeRegister(at('s16'), block(0x7ff7))).toBe(0x7ff7);
    expect(decodeRegister(at('u32'), block(0xffff, 0xfff7))).toBe(0xfffffff7);
    expect(decodeRegister(at('s32'), block(0x7fff, 0xfff7))).toBe(0x7ffffff7);
  });

  it('takes signed values in two’s complement, 32-bit ones high word first, and scales exactly', () => {
    expect(decodeRegister(at('s16'), block(0xfff6))).toBe(-10);
    expect(decodeRegister(at('s32'), block(0xffff, 0xfff1))).toBe(-15);
    expect(decodeRegister(at('u32'), block(0x0001, 0x0002))).toBe(65538);
    expect(decodeRegister(at('u32', 10), block(0, 2305))).toBe(230.5);
    expect(decodeRegister(at('u16', 10), block(134))).toBe(13.4);
  });

  it('a register outside what was read is unknown', () => {
    expect(decodeRegister({ address: 101, width: 'u32', divisor: 1 }, block(1, 2))).toBeNull();
    expect(decodeRegister(at('u16'), null)).toBeNull();
  });

  it('names the control modes and engine states, and unknown codes are null', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map(decodeMode)).toEqual([
      'stop',
      'auto',
      'manual',
      'test_on_load',
      'auto_manual_restore',
      'user_configuration',
      'test_off_load',
      'off',
      null,
    ]);
    expect([0, 1, 2, 3, 4, 5, 6, 15, 7].map(decodeEngineState)).toEqual([
      'stopped',
      'pre_start',
      'warming_up',
      'running',
      'cooling_down',
      'stopped',
      'post_run',
      'not_available',
      null,
    ]);
  });

  it('running: from the engine state where there is one, else from the speed, else unknown', () => {
    expect(decodeRunning('cooling_down', 0)).toEqual({ running: true, source: 'status' });
    expect(decodeRunning('pre_start', 0)).toEqual({ running: false, source: 'status' });
    expect(decodeRunning('not_available', 1500)).toEqual({ running: null, source: 'status' });
    expect(decodeRunning(null, 1500)).toEqual({ running: true, source: 'rpm' });
    expect(decodeRunning(null, 100)).toEqual({ running: false, source: 'rpm' });
    expect(decodeRunning(null, null)).toEqual({ running: null, source: null });
  });

  it('unpacks four alarms a register, the first in the top nibble, and keeps the worst level', () => {
    expect(alarmCodes([0x1234])).toEqual([1, 2, 3, 4]);
    expect(decodeAlarms([0x1121, 0xf8a1], 'old')).toEqual({
      level: 'warning',
      active: [{ index: 2, name: 'high_coolant_temperature', level: 'warning' }],
    });
    expect(decodeAlarms([0x4000, 0x0003], 'named')).toEqual({
      level: 'shutdown',
      active: [
        { index: 0, name: null, level: 'electrical_trip' },
        { index: 7, name: null, level: 'shutdown' },
      ],
    });
    expect(decodeAlarms([0x1111], 'named')).toEqual({ level: 'none', active: [] });
    expect(decodeAlarms(null, null)).toEqual({ level: null, active: [] });
  });

  it('finds a control function in the page 16 flags and builds its key with the complement', () => {
    const flags = [0, 0, 0x4000, 0, 0, 0, 0, 0];
    expect(scfSupported(flags, 33)).toBe(true);
    expect(scfSupported(flags, 32)).toBe(false);
    expect(scfSupported([0x8000], 0)).toBe(true);
    expect(scfKeyWords(33)).toEqual([35733, 29802]);
  });

  it('picks the family from manufacturer code and model number together', () => {
    const ident = (m: number, n: number) => decodeIdentity({ start: 768, words: [m, n, 0, 42, 1] });
    expect(ident(1, 32807)).toMatchObject({ model: '4520 MkII', family: 'dse_45xx_mkii', serial: '42' });
    expect(ident(1, 4623).family).toBe('dse_4xxx_old_alarms');
    expect(ident(1, 32834)).toMatchObject({ model: '8660 MkII', family: 'dse_8xxx_mkii' });
    expect(ident(2, 32807)).toMatchObject({ model: null, family: null, manufacturer_code: 2 });
  });
});
