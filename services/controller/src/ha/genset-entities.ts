import { genset } from '@outpost/contracts';

type Cmps = Record<string, Record<string, unknown>>;

/**
 * The report while it is known: absent, null or stale reads as unknown in every template. `None` is
 * the payload HA's MQTT sensors and binary sensors take as "unknown" (no number, no ON/OFF).
 */
const KNOWN =
  '{% set g = value_json.genset if value_json.genset and not value_json.genset.stale else none %}';
const value = (path: string, factor = 1) =>
  `${KNOWN}{{ (g.${path}${factor === 1 ? '' : ` * ${factor}`}) if g and g.${path} is not none else 'None' }}`;

/** [key, name, path in the report, device class, unit, state class, precision] */
const SENSORS: [string, string, string, string | null, string, 'measurement' | 'total_increasing', number][] =
  [
    ['oil_pressure', 'Oil pressure', 'instruments.oil_pressure_kpa', 'pressure', 'kPa', 'measurement', 0],
    [
      'coolant_temperature',
      'Coolant temperature',
      'instruments.coolant_temperature_c',
      'temperature',
      '°C',
      'measurement',
      0,
    ],
    [
      'oil_temperature',
      'Oil temperature',
      'instruments.oil_temperature_c',
      'temperature',
      '°C',
      'measurement',
      0,
    ],
    ['fuel_level', 'Fuel level', 'instruments.fuel_level_percent', null, '%', 'measurement', 0],
    ['battery_voltage', 'Starter battery', 'instruments.battery_voltage_v', 'voltage', 'V', 'measurement', 1],
    ['engine_speed', 'Engine speed', 'instruments.engine_speed_rpm', null, 'rpm', 'measurement', 0],
    ['frequency', 'Output frequency', 'instruments.frequency_hz', 'frequency', 'Hz', 'measurement', 1],
    ['total_power', 'Output power', 'instruments.total_power_w', 'power', 'W', 'measurement', 0],
    ['load', 'Load', 'instruments.load_percent', null, '%', 'measurement', 0],
    ['energy', 'Energy produced', 'accumulated.energy_kwh', 'energy', 'kWh', 'total_increasing', 1],
    ['starts', 'Engine starts', 'accumulated.starts', null, 'starts', 'total_increasing', 0],
  ];
const ALARMS = [
  ['warning', 'warning alarm'],
  ['shutdown', 'shutdown alarm'],
  ['electrical_trip', 'electrical trip alarm'],
] as const;

/**
 * The generator's own controller (read over Modbus by the relay node) in Home Assistant, from the
 * `genset` object of the retained state: its instruments with HA's device classes and units, its
 * mode and engine state, its run-time meter, and a problem sensor per alarm level (the alarm names
 * as attributes) plus one for a mode other than Auto. Every value is unknown while the report is
 * stale. Without a genset report each entity is reduced to its platform, which removes it.
 */
export function gensetEntities(o: { uid: string; stateTopic: string; shown: boolean }): Cmps {
  const out: Cmps = {};
  const fromState = { state_topic: o.stateTopic };
  const add = (key: string, cmp: Record<string, unknown>) => {
    out[`genset_${key}`] = o.shown ? { ...cmp, unique_id: `${o.uid}_genset_${key}` } : { p: cmp.p };
  };
  for (const [key, name, path, deviceClass, unit, stateClass, precision] of SENSORS) {
    add(key, {
      p: 'sensor',
      name: `Genset ${name.toLowerCase()}`,
      ...(deviceClass ? { device_class: deviceClass } : {}),
      unit_of_measurement: unit,
      state_class: stateClass,
      suggested_display_precision: precision,
      ...fromState,
      value_template: value(path),
    });
  }
  add('run_hours', {
    p: 'sensor',
    name: 'Genset run hours',
    device_class: 'duration',
    unit_of_measurement: 'h',
    // The module's own meter only counts up.
    state_class: 'total_increasing',
    suggested_display_precision: 1,
    ...fromState,
    value_template: `${KNOWN}{{ (g.accumulated.engine_run_time_s / 3600) | round(3) if g and g.accumulated.engine_run_time_s is not none else 'None' }}`,
  });
  add('mode', {
    p: 'sensor',
    name: 'Genset mode',
    device_class: 'enum',
    options: [...genset.GensetMode.options],
    ...fromState,
    value_template: value('mode'),
  });
  add('engine_state', {
    p: 'sensor',
    name: 'Genset engine state',
    device_class: 'enum',
    options: [...genset.GensetEngineState.options],
    ...fromState,
    value_template: value('engine_state'),
  });
  add('not_in_auto', {
    p: 'binary_sensor',
    name: 'Genset not in Auto',
    device_class: 'problem',
    ...fromState,
    value_template: `${KNOWN}{{ ('OFF' if g.mode in ['auto', 'auto_manual_restore'] else 'ON') if g and g.mode is not none else 'None' }}`,
  });
  add('unreachable', {
    p: 'binary_sensor',
    name: 'Genset unreachable',
    device_class: 'problem',
    entity_category: 'diagnostic',
    ...fromState,
    value_template:
      "{{ ('ON' if value_json.genset.stale or not value_json.genset.reachable else 'OFF') if value_json.genset else 'None' }}",
  });
  for (const [level, words] of ALARMS) {
    const active = `(g.alarms.active | selectattr('level', 'eq', '${level}') | list)`;
    add(`${level}_alarm`, {
      p: 'binary_sensor',
      name: `Genset ${words}`,
      device_class: 'problem',
      ...fromState,
      value_template: `${KNOWN}{{ ('ON' if ${active} else 'OFF') if g else 'None' }}`,
      json_attributes_topic: o.stateTopic,
      json_attributes_template: `${KNOWN}{{ {'alarms': (${active} | map(attribute='name') | list) if g else []} | tojson }}`,
    });
  }
  return out;
}
