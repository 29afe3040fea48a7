import { z } from 'zod';

/**
 * Home Assistant's documented MQTT discovery keys (device-based discovery and the platforms Outpost
 * exposes), as strict schemas: an unknown or misspelt key is refused.
 */
const Availability = z.array(
  z.strictObject({
    topic: z.string().min(1),
    payload_available: z.string().optional(),
    payload_not_available: z.string().optional(),
    value_template: z.string().optional(),
  }),
);

const entity = {
  name: z.string().nullable().optional(),
  unique_id: z.string().min(1),
  icon: z.string().startsWith('mdi:').optional(),
  entity_category: z.enum(['config', 'diagnostic']).optional(),
  availability: Availability.optional(),
  availability_mode: z.enum(['all', 'any', 'latest']).optional(),
  availability_topic: z.string().optional(),
  payload_available: z.string().optional(),
  payload_not_available: z.string().optional(),
  json_attributes_topic: z.string().optional(),
  json_attributes_template: z.string().optional(),
  enabled_by_default: z.boolean().optional(),
  encoding: z.string().optional(),
  default_entity_id: z.string().optional(),
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
};

const SENSOR_UNITS: Record<string, string[]> = {
  duration: ['d', 'h', 'min', 's', 'ms'],
  volume: ['L', 'mL', 'gal', 'fl. oz.', 'm³', 'ft³', 'CCF'],
  distance: ['km', 'm', 'cm', 'mm', 'mi', 'yd', 'ft', 'in', 'nmi'],
  speed: ['ft/s', 'in/d', 'in/h', 'km/h', 'kn', 'm/s', 'mph', 'mm/d', 'mm/s'],
  // The start conditions' sources.
  battery: ['%'],
  voltage: ['V', 'mV', 'µV', 'kV', 'MV'],
  current: ['A', 'mA'],
  power: ['W', 'kW', 'MW', 'GW', 'TW', 'mW', 'BTU/h'],
  // The generator's own controller over Modbus.
  pressure: ['Pa', 'kPa', 'hPa', 'bar', 'cbar', 'mbar', 'mmHg', 'inHg', 'psi'],
  temperature: ['°C', '°F', 'K'],
  frequency: ['Hz', 'kHz', 'MHz', 'GHz'],
  energy: ['J', 'kJ', 'MJ', 'GJ', 'mWh', 'Wh', 'kWh', 'MWh', 'GWh', 'TWh', 'cal', 'kcal', 'Mcal', 'Gcal'],
};

export const BinarySensor = z.strictObject({
  ...entity,
  p: z.literal('binary_sensor'),
  state_topic: z.string().min(1),
  value_template: z.string().optional(),
  device_class: z
    .enum(['battery', 'connectivity', 'moving', 'power', 'problem', 'running', 'safety', 'running'])
    .optional(),
  payload_on: z.string().optional(),
  payload_off: z.string().optional(),
  off_delay: z.number().optional(),
  expire_after: z.number().optional(),
  force_update: z.boolean().optional(),
});

export const Sensor = z
  .strictObject({
    ...entity,
    p: z.literal('sensor'),
    state_topic: z.string().min(1),
    value_template: z.string().optional(),
    device_class: z
      .enum([
        'duration',
        'volume',
        'distance',
        'speed',
        'enum',
        'battery',
        'voltage',
        'current',
        'power',
        'pressure',
        'temperature',
        'frequency',
        'energy',
      ])
      .optional(),
    unit_of_measurement: z.string().optional(),
    // measurement_angle (HA 2025.2 on): an angle in degrees, averaged on the circle.
    state_class: z.enum(['measurement', 'measurement_angle', 'total', 'total_increasing']).optional(),
    suggested_display_precision: z.number().int().nonnegative().optional(),
    options: z.array(z.string()).optional(),
    expire_after: z.number().optional(),
    force_update: z.boolean().optional(),
  })
  .refine(
    (s) => (s.device_class === 'enum') === (s.options !== undefined),
    'options go with device_class enum',
  )
  .refine(
    (s) =>
      !s.device_class ||
      s.device_class === 'enum' ||
      (SENSOR_UNITS[s.device_class] ?? []).includes(s.unit_of_measurement ?? ''),
    'unit_of_measurement must be one HA allows for the device_class',
  )
  .refine(
    (s) => s.state_class !== 'measurement_angle' || s.unit_of_measurement === '°',
    'state_class measurement_angle goes with unit_of_measurement °',
  );

export const Switch = z.strictObject({
  ...entity,
  p: z.literal('switch'),
  command_topic: z.string().min(1),
  state_topic: z.string().optional(),
  value_template: z.string().optional(),
  payload_on: z.string().optional(),
  payload_off: z.string().optional(),
  state_on: z.string().optional(),
  state_off: z.string().optional(),
  optimistic: z.boolean().optional(),
  retain: z.boolean().optional(),
  device_class: z.enum(['outlet', 'switch']).optional(),
});

export const Select = z.strictObject({
  ...entity,
  p: z.literal('select'),
  command_topic: z.string().min(1),
  options: z.array(z.string()).min(1),
  state_topic: z.string().optional(),
  value_template: z.string().optional(),
  command_template: z.string().optional(),
  optimistic: z.boolean().optional(),
  retain: z.boolean().optional(),
});

export const Button = z.strictObject({
  ...entity,
  p: z.literal('button'),
  command_topic: z.string().min(1),
  payload_press: z.string().optional(),
  command_template: z.string().optional(),
  device_class: z.enum(['identify', 'restart', 'update']).optional(),
  retain: z.boolean().optional(),
});

export const DeviceTracker = z.strictObject({
  ...entity,
  p: z.literal('device_tracker'),
  state_topic: z.string().optional(),
  value_template: z.string().optional(),
  payload_home: z.string().optional(),
  payload_not_home: z.string().optional(),
  payload_reset: z.string().optional(),
  source_type: z.enum(['gps', 'router', 'bluetooth', 'bluetooth_le']).optional(),
});

/** A component reduced to its platform: HA removes that entity from the device. */
export const Removed = z.strictObject({ p: z.string().min(1) });

export const Component = z.union([BinarySensor, Sensor, Switch, Select, Button, DeviceTracker, Removed]);

export const DeviceDiscovery = z.strictObject({
  dev: z.strictObject({
    ids: z.union([z.string(), z.array(z.string()).min(1)]),
    name: z.string().min(1),
    mf: z.string().optional(),
    mdl: z.string().optional(),
    mdl_id: z.string().optional(),
    sw: z.string().optional(),
    hw: z.string().optional(),
    sn: z.string().optional(),
    sa: z.string().optional(),
    cu: z.string().optional(),
    via_device: z.string().optional(),
  }),
  o: z.strictObject({ name: z.string().min(1), sw: z.string().optional(), url: z.string().optional() }),
  cmps: z.record(z.string().regex(/^[a-z0-9_-]+$/), Component),
  availability: Availability.optional(),
  availability_mode: z.enum(['all', 'any', 'latest']).optional(),
  state_topic: z.string().optional(),
  command_topic: z.string().optional(),
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  encoding: z.string().optional(),
});
