import { GENERATOR_STATES, generator, HOA_POSITIONS } from '@outpost/contracts';
import { commandEntities, onOff } from './command-entities.js';
import { type ConditionEntitiesInput, conditionEntities } from './condition-entities.js';
import { gensetEntities } from './genset-entities.js';
import { healthEntities } from './health-entities.js';

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
  /** The configured start-condition sources and conditions (a sensor and a binary sensor each). */
  conditions?: ConditionEntitiesInput;
  /** The relay node has reported the generator's own controller: its entities are shown. */
  genset?: boolean;
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
    relaynode_clock_offset: {
      p: 'sensor',
      name: 'Relay node clock offset',
      unique_id: `${uid}_relaynode_clock_offset`,
      device_class: 'duration',
      unit_of_measurement: 's',
      state_class: 'measurement',
      entity_category: 'diagnostic',
      suggested_display_precision: 1,
      ...fromState,
      value_template: '{{ value_json.relaynode_clock_offset_seconds }}',
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
    ...healthEntities({
      uid,
      stateTopic: t.state,
      statsTopic: t.stats,
      set: t.set,
      serviceButton: (o.automationCommands ?? new Set(generator.DEFAULT_AUTOMATION_COMMANDS)).has(
        'maintenance_done',
      ),
    }),
    ...conditionEntities(uid, t.state, o.conditions ?? { sources: [], conditions: [] }),
    ...gensetEntities({ uid, stateTopic: t.state, shown: o.genset ?? false }),
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
