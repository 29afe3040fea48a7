import { GENERATOR_STATES, generator, HOA_POSITIONS, OVERRIDE_TYPES } from '@outpost/contracts';

/**
 * Home Assistant device-based MQTT discovery for one controller: one retained config on
 * `<ha prefix>/device/<object id>/config` carrying every entity (`cmps`). Commands go to the
 * controller's own `controller/<id>/set` topic, so they pass the same gates as the REST API.
 * Only the commands the automation accounts may send (AUTOMATION_COMMANDS) are offered: a switch
 * when both of its directions are allowed, a button when one is, a read-only entity for the state.
 */
export interface ControllerDiscoveryOptions {
  controllerId: string;
  relaynodeId: string;
  /** The Outpost topic prefix (MQTT_TOPIC_PREFIX). */
  topicPrefix: string;
  /** HA_DISCOVERY_PREFIX. */
  haPrefix: string;
  version: string;
  /** HOA switch wired: without it the HOA position entity is removed. */
  hoaEnabled: boolean;
  /** GPIO inputs the site lacks (e.g. no BMS pin): a diagnostic sensor says so. */
  inputWarnings?: string[];
  /** The console's address, HA's "Visit" link on the device page. */
  consoleUrl?: string | undefined;
  /** AUTOMATION_COMMANDS: what Home Assistant's account may send; default the contracts' default. */
  automationCommands?: ReadonlySet<generator.AutomationCommand> | undefined;
}

export type DiscoveryPayload = Record<string, unknown>;

const join = (prefix: string, rest: string) => (prefix ? `${prefix}/${rest}` : rest);

export const controllerObjectId = (controllerId: string) => `outpost_controller_${controllerId}`;

export function controllerTopics(
  o: Pick<ControllerDiscoveryOptions, 'controllerId' | 'relaynodeId' | 'topicPrefix'>,
) {
  return {
    state: join(o.topicPrefix, `controller/${o.controllerId}/state`),
    set: join(o.topicPrefix, `controller/${o.controllerId}/set`),
    /** Retained runtime, run hours and fuel for HA (not part of the generator state). */
    stats: join(o.topicPrefix, `controller/${o.controllerId}/stats`),
    availability: join(o.topicPrefix, `controller/${o.controllerId}/availability`),
    relaynodeAvailability: join(o.topicPrefix, `relaynode/${o.relaynodeId}/availability`),
  };
}

export function controllerDiscoveryTopic(haPrefix: string, controllerId: string): string {
  return `${haPrefix}/device/${controllerObjectId(controllerId)}/config`;
}

/** HA caps a state at 255 characters. */
export function inputWarningText(warnings: string[]): string {
  return (warnings.length ? warnings.join('; ') : 'ok').slice(0, 255);
}

const onOff = (field: string) => `{{ 'ON' if value_json.${field} else 'OFF' }}`;
const cmd = (payload: Record<string, unknown>) => JSON.stringify(payload);

export function controllerDiscovery(o: ControllerDiscoveryOptions): DiscoveryPayload {
  const t = controllerTopics(o);
  const uid = controllerObjectId(o.controllerId);
  const controllerOnly = [
    { topic: t.availability, payload_available: 'online', payload_not_available: 'offline' },
  ];
  // The device follows the controller alone, so Disarm and Override stay usable exactly when the relay
  // node drops; only what the relay node itself reports, or needs, also follows the node.
  const withRelaynode = {
    availability: [
      ...controllerOnly,
      { topic: t.relaynodeAvailability, payload_available: 'online', payload_not_available: 'offline' },
    ],
    availability_mode: 'all',
  };
  const fromState = { state_topic: t.state };
  const offered = commandEntities({
    uid,
    set: t.set,
    fromState,
    withRelaynode,
    allowed: o.automationCommands ?? new Set(generator.DEFAULT_AUTOMATION_COMMANDS),
  });
  const cmps: Record<string, Record<string, unknown>> = {
    running: {
      p: 'binary_sensor',
      name: 'Generator running',
      unique_id: `${uid}_running`,
      device_class: 'running',
      ...fromState,
      value_template: onOff('running'),
    },
    ...offered.generator,
    ...offered.armed,
    trigger: {
      p: 'sensor',
      name: 'Trigger',
      unique_id: `${uid}_trigger`,
      icon: 'mdi:play-circle-outline',
      ...fromState,
      value_template: "{{ value_json.trigger if value_json.trigger else 'none' }}",
    },
    state: {
      p: 'sensor',
      name: 'State',
      unique_id: `${uid}_state`,
      device_class: 'enum',
      options: [...GENERATOR_STATES],
      ...fromState,
      value_template: '{{ value_json.state }}',
    },
    runtime: {
      p: 'sensor',
      name: 'Runtime',
      unique_id: `${uid}_runtime`,
      device_class: 'duration',
      unit_of_measurement: 's',
      state_class: 'measurement',
      state_topic: t.stats,
      value_template: '{{ value_json.runtime_seconds }}',
    },
    total_run_hours: {
      p: 'sensor',
      name: 'Total run hours',
      unique_id: `${uid}_total_run_hours`,
      device_class: 'duration',
      unit_of_measurement: 'h',
      state_class: 'total_increasing',
      suggested_display_precision: 1,
      state_topic: t.stats,
      value_template: '{{ value_json.total_run_hours }}',
    },
    fuel_used: {
      p: 'sensor',
      name: 'Fuel used',
      unique_id: `${uid}_fuel_used`,
      device_class: 'volume',
      unit_of_measurement: 'gal',
      // A fuel-usage reset brings it back to 0, which total_increasing reads as a new meter cycle.
      state_class: 'total_increasing',
      suggested_display_precision: 2,
      state_topic: t.stats,
      value_template: '{{ value_json.fuel_used_gallons }}',
    },
    relaynode_connected: {
      p: 'binary_sensor',
      name: 'Relay node connected',
      unique_id: `${uid}_relaynode_connected`,
      device_class: 'connectivity',
      entity_category: 'diagnostic',
      ...fromState,
      value_template: onOff('slave_connected'),
    },
    epo_engaged: {
      p: 'binary_sensor',
      name: 'EPO engaged',
      unique_id: `${uid}_epo_engaged`,
      device_class: 'safety',
      ...fromState,
      value_template: onOff('slave_physical_safety_engaged'),
      ...withRelaynode,
    },
    failsafe_triggered: {
      p: 'binary_sensor',
      name: 'Failsafe triggered',
      unique_id: `${uid}_failsafe_triggered`,
      device_class: 'problem',
      ...fromState,
      value_template: onOff('failsafe_triggered'),
      ...withRelaynode,
    },
    hoa_position: o.hoaEnabled
      ? {
          p: 'sensor',
          name: 'HOA position',
          unique_id: `${uid}_hoa_position`,
          device_class: 'enum',
          options: [...HOA_POSITIONS],
          icon: 'mdi:toggle-switch-variant',
          ...fromState,
          value_template: '{{ value_json.hoa_position }}',
        }
      : // A component reduced to its platform is how device discovery removes one entity.
        { p: 'sensor' },
    input_warning: {
      p: 'sensor',
      name: 'GPIO inputs',
      unique_id: `${uid}_input_warning`,
      entity_category: 'diagnostic',
      icon: o.inputWarnings?.length ? 'mdi:alert' : 'mdi:check-circle',
      // The text is fixed by the configuration, so it rides on the retained availability message.
      state_topic: t.availability,
      value_template: `{{ ${JSON.stringify(inputWarningText(o.inputWarnings ?? []))} }}`,
    },
    ...offered.override,
    ...offered.clearLockout,
  };
  return {
    dev: {
      ids: [uid],
      name: o.controllerId === 'main' ? 'Outpost generator' : `Outpost generator ${o.controllerId}`,
      mf: 'Outpost',
      mdl: 'Generator controller',
      sw: o.version,
      ...(o.consoleUrl ? { cu: o.consoleUrl } : {}),
    },
    o: { name: 'Outpost', sw: o.version },
    cmps,
    availability: controllerOnly,
    qos: 1,
  };
}

type Cmps = Record<string, Record<string, unknown>>;

/** A component reduced to its platform: how device discovery removes an entity it offered before. */
const removed = (p: string) => ({ p });

/**
 * The entities that send commands, each offered only when its command is allowed, so Home Assistant
 * never shows a control its account is refused. Keys stay the same whatever the setting, so a change
 * of AUTOMATION_COMMANDS removes what is no longer allowed at the next start.
 */
function commandEntities(o: {
  uid: string;
  set: string;
  fromState: { state_topic: string };
  withRelaynode: Record<string, unknown>;
  allowed: ReadonlySet<generator.AutomationCommand>;
}): Record<'generator' | 'armed' | 'override' | 'clearLockout', Cmps> {
  const { uid, allowed } = o;
  const button = (key: string, name: string, icon: string, payload: Record<string, unknown>, extra = {}) => ({
    p: 'button',
    name,
    unique_id: `${uid}_${key}`,
    icon,
    command_topic: o.set,
    payload_press: cmd(payload),
    ...extra,
  });
  const toggle = (
    on: generator.AutomationCommand,
    off: generator.AutomationCommand,
    entity: { key: string; name: string; icon: string; field: string; deviceClass?: string },
    buttons: Record<
      'on' | 'off',
      { key: string; name: string; icon: string; extra?: Record<string, unknown> }
    >,
    switchExtra: Record<string, unknown> = {},
  ): Cmps => {
    const both = allowed.has(on) && allowed.has(off);
    return {
      [entity.key]: both
        ? {
            p: 'switch',
            name: entity.name,
            unique_id: `${uid}_${entity.key}`,
            icon: entity.icon,
            ...o.fromState,
            value_template: onOff(entity.field),
            state_on: 'ON',
            state_off: 'OFF',
            command_topic: o.set,
            payload_on: cmd({ command: on }),
            payload_off: cmd({ command: off }),
            optimistic: false,
            ...switchExtra,
          }
        : removed('switch'),
      // Without the switch, the state stays visible read-only.
      [`${entity.key}_state`]: both
        ? removed('binary_sensor')
        : {
            p: 'binary_sensor',
            name: entity.name,
            unique_id: `${uid}_${entity.key}_state`,
            icon: entity.icon,
            ...(entity.deviceClass ? { device_class: entity.deviceClass } : {}),
            ...o.fromState,
            value_template: onOff(entity.field),
          },
      [buttons.on.key]:
        allowed.has(on) && !both
          ? button(buttons.on.key, buttons.on.name, buttons.on.icon, { command: on }, buttons.on.extra)
          : removed('button'),
      [buttons.off.key]:
        allowed.has(off) && !both
          ? button(buttons.off.key, buttons.off.name, buttons.off.icon, { command: off }, buttons.off.extra)
          : removed('button'),
    };
  };

  const generatorCmps = toggle(
    'start',
    'stop',
    { key: 'generator', name: 'Generator', icon: 'mdi:engine', field: 'running', deviceClass: 'running' },
    {
      on: { key: 'start_generator', name: 'Start generator', icon: 'mdi:play', extra: o.withRelaynode },
      off: { key: 'stop_generator', name: 'Stop generator', icon: 'mdi:stop' },
    },
    o.withRelaynode,
  );
  // The running binary sensor already shows the generator's state.
  delete generatorCmps.generator_state;

  const armed = toggle(
    'arm',
    'disarm',
    { key: 'armed', name: 'Armed', icon: 'mdi:shield-check', field: 'armed' },
    {
      on: { key: 'arm', name: 'Arm', icon: 'mdi:shield-check' },
      off: { key: 'disarm', name: 'Disarm', icon: 'mdi:shield-off' },
    },
  );

  // The select sets any override or none, so it needs all three; otherwise one button per allowed one.
  const OVERRIDE_BUTTONS = {
    override_force_run: {
      name: 'Force run',
      icon: 'mdi:play-circle',
      payload: { override_type: 'force_run' },
    },
    override_force_stop: {
      name: 'Force stop',
      icon: 'mdi:stop-circle',
      payload: { override_type: 'force_stop' },
    },
    override_disable: { name: 'Clear override', icon: 'mdi:close-circle', payload: { override_type: null } },
  } as const;
  const overrideCommands = Object.keys(OVERRIDE_BUTTONS) as (keyof typeof OVERRIDE_BUTTONS)[];
  const select = overrideCommands.every((c) => allowed.has(c));
  const override: Cmps = {
    override: select
      ? {
          p: 'select',
          name: 'Override',
          unique_id: `${uid}_override`,
          icon: 'mdi:hand-back-right',
          options: ['none', ...OVERRIDE_TYPES],
          ...o.fromState,
          value_template: "{{ value_json.override if value_json.override else 'none' }}",
          command_topic: o.set,
          command_template:
            "{{ {'command': 'override', 'override_type': (none if value == 'none' else value)} | to_json }}",
          optimistic: false,
        }
      : removed('select'),
    override_state: select
      ? removed('sensor')
      : {
          p: 'sensor',
          name: 'Override',
          unique_id: `${uid}_override_state`,
          icon: 'mdi:hand-back-right',
          device_class: 'enum',
          options: ['none', ...OVERRIDE_TYPES],
          ...o.fromState,
          value_template: "{{ value_json.override if value_json.override else 'none' }}",
        },
  };
  for (const c of overrideCommands) {
    const b = OVERRIDE_BUTTONS[c];
    override[c] =
      allowed.has(c) && !select
        ? button(c, b.name, b.icon, { command: 'override', ...b.payload })
        : removed('button');
  }

  const clearLockout: Cmps = {
    clear_lockout: allowed.has('clear_lockout')
      ? button(
          'clear_lockout',
          'Clear lockout',
          'mdi:lock-reset',
          // Pressing it is the acknowledgement the REST call asks for in its body.
          { command: 'clear_lockout', acknowledge: true },
          { entity_category: 'config' },
        )
      : removed('button'),
  };
  return { generator: generatorCmps, armed, override, clearLockout };
}
