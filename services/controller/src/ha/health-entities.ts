import { onOff } from './command-entities.js';

type Cmps = Record<string, Record<string, unknown>>;

/**
 * Generator health in Home Assistant: the engine-hour meter, the running feedback, one problem sensor per alarm so an automation
 * can trigger on exactly the alarm it cares about, and a button that marks every due service done.
 */
export function healthEntities(o: {
  uid: string;
  stateTopic: string;
  statsTopic: string;
  set: string;
  /** AUTOMATION_COMMANDS allows maintenance_done: the "Service done" button is offered. */
  serviceButton: boolean;
}): Cmps {
  const fromState = { state_topic: o.stateTopic };
  const alarm = (key: string, name: string, value: string) => ({
    p: 'binary_sensor',
    name,
    unique_id: `${o.uid}_${key}`,
    device_class: 'problem',
    ...fromState,
    value_template: `{{ 'ON' if value_json.health_alarm == '${value}' else 'OFF' }}`,
  });
  return {
    engine_hours: {
      p: 'sensor',
      name: 'Engine hours',
      unique_id: `${o.uid}_engine_hours`,
      device_class: 'duration',
      unit_of_measurement: 'h',
      // `total`, not `total_increasing`: the meter may be set lower (PUT /api/health/hour-meter, to match
      // the generator's own), which total_increasing would read as a meter reset and count the whole
      // reading again in HA's long-term statistics; with `total` HA counts the change as it is.
      state_class: 'total',
      suggested_display_precision: 1,
      // The stats topic is republished while the engine runs; the state topic only on changes.
      state_topic: o.statsTopic,
      value_template: '{{ value_json.engine_hours }}',
    },
    running_feedback: {
      p: 'binary_sensor',
      name: 'Running feedback',
      unique_id: `${o.uid}_running_feedback`,
      device_class: 'running',
      ...fromState,
      value_template: onOff('running_feedback'),
    },
    external_run: {
      p: 'binary_sensor',
      name: 'Running without a command',
      unique_id: `${o.uid}_external_run`,
      device_class: 'running',
      ...fromState,
      value_template: onOff('external_run_active'),
    },
    fail_to_start: alarm('fail_to_start', 'Fail to start', 'fail_to_start'),
    unexpected_stop: alarm('unexpected_stop', 'Unexpected stop', 'unexpected_stop'),
    exercise_failed: alarm('exercise_failed', 'Exercise failed', 'exercise_failed'),
    relay_not_confirmed: alarm('relay_not_confirmed', 'Relay not confirmed', 'relay_not_confirmed'),
    relay_node_report_unverified: alarm(
      'relay_node_report_unverified',
      'Relay node report unverified',
      'relay_node_report_unverified',
    ),
    lease_not_published: alarm('lease_not_published', 'Lease not published', 'lease_not_published'),
    maintenance_due: {
      p: 'binary_sensor',
      name: 'Service due',
      unique_id: `${o.uid}_maintenance_due`,
      device_class: 'problem',
      ...fromState,
      value_template: onOff('maintenance_due'),
    },
    maintenance_done: o.serviceButton
      ? {
          p: 'button',
          name: 'Service done',
          unique_id: `${o.uid}_maintenance_done`,
          icon: 'mdi:wrench-check',
          command_topic: o.set,
          payload_press: JSON.stringify({ command: 'maintenance_done' }),
        }
      : // Removed when AUTOMATION_COMMANDS no longer allows it.
        { p: 'button' },
  };
}
