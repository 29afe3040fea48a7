import { ConditionsConfig, SourceConfig } from '@outpost/contracts/conditions';
import { describe, expect, it } from 'vitest';
import { parseSourcePayload, sourceTopic } from '../../src/domain/conditions/source-topics.js';
import { quietHoursAt } from '../../src/domain/conditions/quiet-hours.js';

const victron = SourceConfig.parse({ type: 'victron_gx', portal_id: 'c0619ab1c2d3' });
const devices = SourceConfig.parse({
  type: 'victron_gx',
  portal_id: 'c0619ab1c2d3',
  battery_instance: 512,
  vebus_instance: 276,
});
const ha = SourceConfig.parse({ type: 'ha_statestream', entity_id: 'sensor.jk_bms_soc' });
const plain = SourceConfig.parse({ type: 'mqtt', topic: 'esphome/jk/soc' });
const json = SourceConfig.parse({ type: 'mqtt', topic: 'bms/data', json_path: 'cells.0.v', scale: 0.001 });

describe('start condition sources: topics and payload shapes', () => {
  it('Victron GX: by default the system service topics, no device instance needed', () => {
    expect(sourceTopic('soc', victron)).toBe('N/c0619ab1c2d3/system/0/Dc/Battery/Soc');
    expect(sourceTopic('battery_voltage', victron)).toBe('N/c0619ab1c2d3/system/0/Dc/Battery/Voltage');
    expect(sourceTopic('battery_current', victron)).toBe('N/c0619ab1c2d3/system/0/Dc/Battery/Current');
    expect(sourceTopic('ac_load', victron)).toBe('N/c0619ab1c2d3/system/0/Ac/Consumption/Total/Power');
    expect(sourceTopic('grid', victron)).toBe('N/c0619ab1c2d3/system/0/Ac/ActiveIn/Source');
  });

  it('Victron GX: a device instance reads that battery monitor or inverter', () => {
    expect(sourceTopic('soc', devices)).toBe('N/c0619ab1c2d3/battery/512/Soc');
    expect(sourceTopic('battery_voltage', devices)).toBe('N/c0619ab1c2d3/battery/512/Dc/0/Voltage');
    expect(sourceTopic('battery_current', devices)).toBe('N/c0619ab1c2d3/battery/512/Dc/0/Current');
    expect(sourceTopic('ac_load', devices)).toBe('N/c0619ab1c2d3/vebus/276/Ac/Out/P');
    expect(sourceTopic('high_temperature', devices)).toBe('N/c0619ab1c2d3/vebus/276/Alarms/HighTemperature');
    expect(sourceTopic('overload', devices)).toBe('N/c0619ab1c2d3/vebus/276/Alarms/Overload');
    expect(sourceTopic('grid', devices)).toBe('N/c0619ab1c2d3/vebus/276/Ac/ActiveIn/Connected');
  });

  it('Victron GX: the warnings need the inverter instance (a 422 naming it)', () => {
    const res = ConditionsConfig.safeParse({ sources: { overload: victron, soc: victron } });
    expect(res.success).toBe(false);
    expect(res.error?.issues.map((i) => i.path.join('.'))).toEqual(['sources.overload.vebus_instance']);
    expect(ConditionsConfig.safeParse({ sources: { overload: devices, soc: victron } }).success).toBe(true);
  });

  it('Victron GX: the active input source counts grid (1) and shore (3) as grid present, not the generator (2)', () => {
    const grid = (value: unknown) => parseSourcePayload('grid', victron, JSON.stringify({ value }));
    expect(grid(1)).toBe(1);
    expect(grid(3)).toBe(1);
    expect(grid(2)).toBe(0);
    expect(grid(240)).toBe(0);
    expect(grid(0)).toBe(0);
    expect(grid(null)).toBeNull();
    expect(parseSourcePayload('grid', victron, '')).toBeNull();
    // The inverter's own flag is already 0 / 1.
    expect(parseSourcePayload('grid', devices, '{"value": 1}')).toBe(1);
    expect(parseSourcePayload('grid', devices, '{"value": 0}')).toBe(0);
  });

  it('Victron GX: {"value": x}, null for invalid, empty when the device left; discharge turned positive', () => {
    expect(parseSourcePayload('soc', victron, '{"value": 54.3}')).toBe(54.3);
    expect(parseSourcePayload('soc', victron, '{"value":null}')).toBeNull();
    expect(parseSourcePayload('soc', victron, '')).toBeNull();
    expect(parseSourcePayload('battery_current', victron, '{"value": -42.5}')).toBe(42.5);
    expect(parseSourcePayload('battery_current', devices, '{"value": -42.5}')).toBe(42.5);
    expect(parseSourcePayload('soc', victron, '{"max":100,"min":0,"value":12}')).toBe(12);
    expect(parseSourcePayload('soc', victron, 'garbage')).toBeUndefined();
    expect(parseSourcePayload('soc', victron, '{"value":"high"}')).toBeUndefined();
  });

  it('Home Assistant statestream: plain state text, on/off, unavailable', () => {
    expect(sourceTopic('soc', ha)).toBe('homeassistant/sensor/jk_bms_soc/state');
    expect(parseSourcePayload('soc', ha, '48.2')).toBe(48.2);
    expect(parseSourcePayload('grid', ha, 'on')).toBe(1);
    expect(parseSourcePayload('grid', ha, 'off')).toBe(0);
    expect(parseSourcePayload('soc', ha, 'unavailable')).toBeNull();
    expect(parseSourcePayload('soc', ha, 'unknown')).toBeNull();
  });

  it('plain topic: a number, a JSON number, or a JSON path; scaled', () => {
    expect(parseSourcePayload('soc', plain, ' 61 ')).toBe(61);
    expect(parseSourcePayload('soc', plain, 'true')).toBe(1);
    expect(parseSourcePayload('soc', plain, '{"soc": 61}')).toBeUndefined();
    expect(parseSourcePayload('battery_voltage', json, '{"cells": [{"v": 3312}]}')).toBeCloseTo(3.312);
    expect(parseSourcePayload('battery_voltage', json, '{"cells": []}')).toBeUndefined();
  });

  it('quiet hours across midnight, and when they next change', () => {
    const q = { enabled: true, start: '22:00', end: '07:00' };
    const at = (h: number, m = 0) => Date.UTC(2026, 5, 1, h, m);
    expect(quietHoursAt(q, 'UTC', at(23))).toEqual({ quiet: true, changesAt: Date.UTC(2026, 5, 2, 7) });
    expect(quietHoursAt(q, 'UTC', at(6, 59)).quiet).toBe(true);
    expect(quietHoursAt(q, 'UTC', at(7))).toEqual({ quiet: false, changesAt: at(22) });
    expect(quietHoursAt(q, 'Europe/Berlin', at(21)).quiet).toBe(true);
    expect(quietHoursAt({ ...q, enabled: false }, 'UTC', at(23)).quiet).toBe(false);
  });
});
