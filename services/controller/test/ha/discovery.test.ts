import { generator } from '@outpost/contracts';
import { describe, expect, it } from 'vitest';
import { controllerDiscovery, controllerDiscoveryTopic } from '../../src/ha/discovery.js';
import { homeassistant } from '@outpost/contracts';

const { BinarySensor, Button, DeviceDiscovery, Select, Sensor, Switch } = homeassistant;

const base = {
  controllerId: 'main',
  relaynodeId: 'main',
  topicPrefix: 'outpost',
  haPrefix: 'homeassistant',
  version: '1.2.3',
  hoaEnabled: true,
  consoleUrl: 'http://192.168.1.10:8000',
};
const PLATFORM = {
  binary_sensor: BinarySensor,
  sensor: Sensor,
  switch: Switch,
  select: Select,
  button: Button,
};
type Cmp = Record<string, unknown> & { p: keyof typeof PLATFORM };
const ALL = new Set(generator.AutomationCommand.options);
/** The entities HA shows: a component reduced to its platform removes one. */
const shown = (cmps: Record<string, Cmp>) =>
  Object.fromEntries(Object.entries(cmps).filter(([, c]) => Object.keys(c).length > 1));
/** Every command the shown components can send, as AUTOMATION_COMMANDS names it. */
const offeredCommands = (cmps: Record<string, Cmp>) =>
  Object.values(shown(cmps)).flatMap((c) => {
    const payloads = [c.payload_on, c.payload_off, c.payload_press].filter((p) => typeof p === 'string');
    const sent: string[] = payloads.map((p) =>
      generator.automationCommandOf(generator.ControllerSetCommand.parse(JSON.parse(p as string))),
    );
    // The override select sends every override (or none).
    if (c.p === 'select') sent.push('override_force_run', 'override_force_stop', 'override_disable');
    return sent;
  });

describe('controller HA discovery payload', () => {
  const payload = controllerDiscovery(base);
  const cmps = payload.cmps as Record<string, Cmp>;

  it('is a device config HA accepts: documented keys only, per platform', () => {
    expect(DeviceDiscovery.safeParse(payload).error).toBeUndefined();
    for (const [key, cmp] of Object.entries(shown(cmps))) {
      const parsed = PLATFORM[cmp.p].safeParse(cmp);
      expect(parsed.error, `${key}: ${parsed.error?.message}`).toBeUndefined();
    }
    expect(controllerDiscoveryTopic('homeassistant', 'main')).toBe(
      'homeassistant/device/outpost_controller_main/config',
    );
  });

  it('has every entity a home-automation user needs, with the right platform and unit', () => {
    const shape = Object.fromEntries(
      Object.entries(shown(cmps)).map(([k, c]) => [
        k,
        [c.p, c.device_class ?? null, c.unit_of_measurement ?? null],
      ]),
    );
    // Default AUTOMATION_COMMANDS (start, stop, disarm, override_force_stop): the start/stop switch,
    // Armed read-only with a Disarm button, Override read-only with a Force stop button.
    expect(shape).toEqual({
      running: ['binary_sensor', 'running', null],
      generator: ['switch', null, null],
      armed_state: ['binary_sensor', null, null],
      disarm: ['button', null, null],
      trigger: ['sensor', null, null],
      state: ['sensor', 'enum', null],
      runtime: ['sensor', 'duration', 's'],
      total_run_hours: ['sensor', 'duration', 'h'],
      fuel_used: ['sensor', 'volume', 'gal'],
      relaynode_connected: ['binary_sensor', 'connectivity', null],
      epo_engaged: ['binary_sensor', 'safety', null],
      failsafe_triggered: ['binary_sensor', 'problem', null],
      hoa_position: ['sensor', 'enum', null],
      input_warning: ['sensor', null, null],
      override_state: ['sensor', 'enum', null],
      relay_not_confirmed: ['binary_sensor', 'problem', null],
      relay_node_report_unverified: ['binary_sensor', 'problem', null],
      lease_not_published: ['binary_sensor', 'problem', null],
      relaynode_clock_offset: ['sensor', 'duration', 's'],
      override_force_stop: ['button', null, null],
      engine_hours: ['sensor', 'duration', 'h'],
      running_feedback: ['binary_sensor', 'running', null],
      external_run: ['binary_sensor', 'running', null],
      fail_to_start: ['binary_sensor', 'problem', null],
      unexpected_stop: ['binary_sensor', 'problem', null],
      exercise_failed: ['binary_sensor', 'problem', null],
      maintenance_due: ['binary_sensor', 'problem', null],
      maintenance_done: ['button', null, null],
    });
    // The meter may be set lower: total_increasing would make HA read that as a reset.
    expect(cmps.engine_hours).toMatchObject({
      state_class: 'total',
      state_topic: 'outpost/controller/main/stats',
      value_template: '{{ value_json.engine_hours }}',
    });
    const ids = Object.values(shown(cmps)).map((c) => c.unique_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('offers only the commands the automation account may send, and removes the others', () => {
    expect(offeredCommands(cmps).sort()).toEqual([...generator.DEFAULT_AUTOMATION_COMMANDS].sort());
    // What a wider setting offers is sent as removed (platform only), so narrowing it takes them away.
    for (const key of ['armed', 'arm', 'override', 'override_force_run', 'override_disable', 'clear_lockout'])
      expect(Object.keys(cmps[key] ?? {}), key).toEqual(['p']);
  });

  it('follows AUTOMATION_COMMANDS: every command gives the switches, the select and clear lockout', () => {
    const all = controllerDiscovery({ ...base, automationCommands: ALL }).cmps as Record<string, Cmp>;
    expect(offeredCommands(all).sort()).toEqual([...ALL].sort());
    expect(all.armed).toMatchObject({
      p: 'switch',
      payload_on: '{"command":"arm"}',
      payload_off: '{"command":"disarm"}',
    });
    expect(all.override).toMatchObject({ p: 'select', options: ['none', 'force_run', 'force_stop'] });
    for (const key of ['armed_state', 'disarm', 'override_state', 'override_force_stop'])
      expect(Object.keys(all[key] ?? {}), key).toEqual(['p']);
    for (const [key, cmp] of Object.entries(shown(all))) {
      expect(PLATFORM[cmp.p].safeParse(cmp).error, key).toBeUndefined();
    }

    // Stop only: a Stop button instead of the switch; arming and overrides not offered at all.
    const stopOnly = controllerDiscovery({ ...base, automationCommands: new Set(['stop'] as const) })
      .cmps as Record<string, Cmp>;
    expect(offeredCommands(stopOnly)).toEqual(['stop']);
    expect(stopOnly.stop_generator).toMatchObject({ p: 'button', payload_press: '{"command":"stop"}' });
    expect(Object.keys(stopOnly.generator ?? {})).toEqual(['p']);
    const none = controllerDiscovery({ ...base, automationCommands: new Set() });
    expect(DeviceDiscovery.safeParse(none).error).toBeUndefined();
    expect(offeredCommands(none.cmps as Record<string, Cmp>)).toEqual([]);
  });

  it('sends commands to controller/<id>/set as ControllerSetCommand JSON, so the controller gates them', () => {
    const sent = [
      cmps.generator?.payload_on,
      cmps.generator?.payload_off,
      cmps.disarm?.payload_press,
      cmps.override_force_stop?.payload_press,
    ].map((p) => generator.ControllerSetCommand.parse(JSON.parse(p as string)));
    expect(sent).toEqual([
      { command: 'start' },
      { command: 'stop' },
      { command: 'disarm' },
      { command: 'override', override_type: 'force_stop' },
    ]);
    for (const c of Object.values(cmps).filter((c) => 'command_topic' in c)) {
      expect(c.command_topic).toBe('outpost/controller/main/set');
    }
    expect(cmps.override_state?.options).toEqual(['none', 'force_run', 'force_stop']);
  });

  it("keeps the controller's entities available when only the relay node drops", () => {
    const topics = (a: unknown) => ((a ?? []) as { topic: string }[]).map((x) => x.topic);
    // The device follows the controller: Disarm, Override and State stay usable without the node.
    expect(topics(payload.availability)).toEqual(['outpost/controller/main/availability']);
    for (const key of [
      'armed_state',
      'disarm',
      'state',
      'override_state',
      'override_force_stop',
      'trigger',
      'relaynode_connected',
    ])
      expect(cmps[key]?.availability, key).toBeUndefined();
    // What the relay node reports, or needs to act, also follows the node.
    for (const key of ['generator', 'epo_engaged', 'failsafe_triggered']) {
      expect(topics(cmps[key]?.availability), key).toEqual([
        'outpost/controller/main/availability',
        'outpost/relaynode/main/availability',
      ]);
      expect(cmps[key]?.availability_mode, key).toBe('all');
    }
  });

  it('reads fuel used as a meter HA can total, links the console, and clears a lockout with its acknowledgement', () => {
    expect(cmps.fuel_used?.state_class).toBe('total_increasing');
    expect((payload.dev as { cu?: string }).cu).toBe('http://192.168.1.10:8000');
    const all = controllerDiscovery({ ...base, automationCommands: ALL }).cmps as Record<string, Cmp>;
    expect(all.clear_lockout?.availability).toBeUndefined();
    expect(JSON.parse(all.clear_lockout?.payload_press as string)).toEqual({
      command: 'clear_lockout',
      acknowledge: true,
    });
    expect(generator.ControllerSetCommand.safeParse({ command: 'clear_lockout' }).success).toBe(false);
  });

  it('follows the topic prefix and ids', () => {
    const other = controllerDiscovery({
      ...base,
      controllerId: 'north',
      relaynodeId: 'n1',
      topicPrefix: 'site',
    });
    expect((other.cmps as Record<string, Cmp>).running?.state_topic).toBe('site/controller/north/state');
    expect((other.cmps as Record<string, Cmp>).epo_engaged?.availability).toEqual([
      expect.objectContaining({ topic: 'site/controller/north/availability' }),
      expect.objectContaining({ topic: 'site/relaynode/n1/availability' }),
    ]);
    expect((other.dev as { ids: string[] }).ids).toEqual(['outpost_controller_north']);
  });

  it('removes the HOA entity (platform only) when the HOA switch is not wired', () => {
    const noHoa = controllerDiscovery({ ...base, hoaEnabled: false });
    expect((noHoa.cmps as Record<string, unknown>).hoa_position).toEqual({ p: 'sensor' });
    expect(DeviceDiscovery.safeParse(noHoa).error).toBeUndefined();
  });
});

describe('start conditions in HA discovery', () => {
  const cmps = controllerDiscovery({
    ...base,
    conditions: { sources: ['soc', 'ac_load', 'grid'], conditions: ['soc', 'ac_load'] },
  }).cmps as Record<string, Cmp>;

  it('shows a sensor per configured source and a binary sensor per enabled condition, HA-valid', () => {
    const added = Object.entries(shown(cmps)).filter(
      ([k]) => k.startsWith('source_') || k.startsWith('condition_'),
    );
    expect(
      Object.fromEntries(
        added.map(([k, c]) => [k, [c.p, c.device_class ?? null, c.unit_of_measurement ?? null]]),
      ),
    ).toEqual({
      source_soc: ['sensor', 'battery', '%'],
      source_ac_load: ['sensor', 'power', 'W'],
      source_grid: ['sensor', null, null],
      condition_soc: ['binary_sensor', null, null],
      condition_ac_load: ['binary_sensor', null, null],
    });
    for (const [key, cmp] of added) {
      const parsed = PLATFORM[cmp.p].safeParse(cmp);
      expect(parsed.error, `${key}: ${parsed.error?.message}`).toBeUndefined();
    }
    expect(cmps.condition_soc?.value_template).toContain("selectattr('name', 'eq', 'soc')");
  });

  it('removes the entities of sources and conditions no longer configured', () => {
    expect(cmps.source_battery_voltage).toEqual({ p: 'sensor' });
    expect(cmps.condition_overload).toEqual({ p: 'binary_sensor' });
    const none = controllerDiscovery(base).cmps as Record<string, Cmp>;
    expect(Object.keys(shown(none)).some((k) => k.startsWith('source_') || k.startsWith('condition_'))).toBe(
      false,
    );
  });
});

describe("the generator's own controller in HA discovery", () => {
  const shape = (cmps: Record<string, Cmp>) =>
    Object.fromEntries(
      Object.entries(shown(cmps))
        .filter(([k]) => k.startsWith('genset_'))
        .map(([k, c]) => [
          k,
          [c.p, c.device_class ?? null, c.unit_of_measurement ?? null, c.state_class ?? null],
        ]),
    );

  it('is removed until the relay node reports a genset', () => {
    expect(shape(controllerDiscovery(base).cmps as Record<string, Cmp>)).toEqual({});
  });

  it('gives its values the device classes and units HA knows, and a problem sensor per alarm level', () => {
    const payload = controllerDiscovery({ ...base, genset: true });
    expect(DeviceDiscovery.safeParse(payload).error).toBeUndefined();
    const cmps = payload.cmps as Record<string, Cmp>;
    for (const [key, cmp] of Object.entries(shown(cmps))) {
      const parsed = PLATFORM[cmp.p].safeParse(cmp);
      expect(parsed.error, `${key}: ${parsed.error?.message}`).toBeUndefined();
    }
    expect(shape(cmps)).toEqual({
      genset_oil_pressure: ['sensor', 'pressure', 'kPa', 'measurement'],
      genset_coolant_temperature: ['sensor', 'temperature', '°C', 'measurement'],
      genset_oil_temperature: ['sensor', 'temperature', '°C', 'measurement'],
      genset_fuel_level: ['sensor', null, '%', 'measurement'],
      genset_battery_voltage: ['sensor', 'voltage', 'V', 'measurement'],
      genset_engine_speed: ['sensor', null, 'rpm', 'measurement'],
      genset_frequency: ['sensor', 'frequency', 'Hz', 'measurement'],
      genset_total_power: ['sensor', 'power', 'W', 'measurement'],
      genset_load: ['sensor', null, '%', 'measurement'],
      genset_energy: ['sensor', 'energy', 'kWh', 'total_increasing'],
      genset_starts: ['sensor', null, 'starts', 'total_increasing'],
      genset_run_hours: ['sensor', 'duration', 'h', 'total_increasing'],
      genset_mode: ['sensor', 'enum', null, null],
      genset_engine_state: ['sensor', 'enum', null, null],
      genset_not_in_auto: ['binary_sensor', 'problem', null, null],
      genset_unreachable: ['binary_sensor', 'problem', null, null],
      genset_warning_alarm: ['binary_sensor', 'problem', null, null],
      genset_shutdown_alarm: ['binary_sensor', 'problem', null, null],
      genset_electrical_trip_alarm: ['binary_sensor', 'problem', null, null],
    });
    // Read from the retained state's genset object; a stale report reads as unknown, never a number.
    expect(cmps.genset_oil_pressure?.state_topic).toBe('outpost/controller/main/state');
    expect(cmps.genset_oil_pressure?.value_template).toContain('not value_json.genset.stale');
    expect(cmps.genset_oil_pressure?.value_template).toContain('g.instruments.oil_pressure_kpa');
    expect(cmps.genset_shutdown_alarm?.value_template).toContain("selectattr('level', 'eq', 'shutdown')");
    expect(cmps.genset_shutdown_alarm?.json_attributes_template).toContain("map(attribute='name')");
    expect(cmps.genset_mode?.options).toEqual(expect.arrayContaining(['stop', 'auto', 'manual']));
  });
});
