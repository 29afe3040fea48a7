import {
  CONDITION_NAMES,
  type ConditionName,
  SOURCE_NAMES,
  SOURCE_UNITS,
  type SourceName,
} from '@outpost/contracts/conditions';

/** Which start-condition sources and conditions are configured (only those are shown). */
export interface ConditionEntitiesInput {
  sources: readonly SourceName[];
  conditions: readonly ConditionName[];
}

const LABELS: Record<SourceName, string> = {
  soc: 'Battery state of charge',
  battery_voltage: 'Battery voltage',
  battery_current: 'Battery discharge current',
  ac_load: 'AC load',
  high_temperature: 'Inverter high temperature',
  overload: 'Inverter overload',
  grid: 'Grid present',
};

const DEVICE_CLASS: Partial<Record<SourceName, string>> = {
  soc: 'battery',
  battery_voltage: 'voltage',
  battery_current: 'current',
  ac_load: 'power',
};

/**
 * A sensor per configured source (its live value, from the retained state's `conditions.sources`)
 * and a binary sensor per configured condition (on while it holds or asks for a run), with its
 * state and countdown as attributes. Names not configured are reduced to their platform, which is
 * how device discovery removes an entity.
 */
export function conditionEntities(
  uid: string,
  stateTopic: string,
  input: ConditionEntitiesInput,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const pick = (list: string, name: string) =>
    `(value_json.conditions.${list} if value_json.conditions is defined else []) | selectattr('name', 'eq', '${name}') | list`;
  for (const name of SOURCE_NAMES) {
    if (!input.sources.includes(name)) {
      out[`source_${name}`] = { p: 'sensor' };
      continue;
    }
    const unit = SOURCE_UNITS[name];
    out[`source_${name}`] = {
      p: 'sensor',
      name: LABELS[name],
      unique_id: `${uid}_source_${name}`,
      ...(DEVICE_CLASS[name] ? { device_class: DEVICE_CLASS[name] } : {}),
      ...(unit ? { unit_of_measurement: unit, state_class: 'measurement' } : {}),
      state_topic: stateTopic,
      value_template: `{% set s = ${pick('sources', name)} %}{{ s[0].value if s and s[0].value is not none else 'unknown' }}`,
    };
  }
  for (const name of CONDITION_NAMES) {
    if (!input.conditions.includes(name)) {
      out[`condition_${name}`] = { p: 'binary_sensor' };
      continue;
    }
    out[`condition_${name}`] = {
      p: 'binary_sensor',
      name: `Start condition ${LABELS[name].toLowerCase()}`,
      unique_id: `${uid}_condition_${name}`,
      icon: 'mdi:engine-outline',
      state_topic: stateTopic,
      value_template: `{% set c = ${pick('conditions', name)} %}{{ 'ON' if c and c[0].state in ['active', 'stop_pending'] else 'OFF' }}`,
      json_attributes_topic: stateTopic,
      json_attributes_template: `{% set c = ${pick('conditions', name)} %}{{ (c[0] if c else {}) | tojson }}`,
    };
  }
  return out;
}
