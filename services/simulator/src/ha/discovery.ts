/**
 * Home Assistant device-based MQTT discovery for one simulator: its position as a GPS device
 * tracker plus altitude, speed, heading and running, read from the simulator's own telemetry topics.
 */
export interface SimulatorDiscoveryOptions {
  simulatorId: string;
  topicPrefix: string;
  haPrefix: string;
  version: string;
}

const join = (prefix: string, rest: string) => (prefix ? `${prefix}/${rest}` : rest);

export const simulatorObjectId = (id: string) => `outpost_simulator_${id}`;

export function simulatorDiscoveryTopic(haPrefix: string, id: string): string {
  return `${haPrefix}/device/${simulatorObjectId(id)}/config`;
}

/** Retained `{"running": bool}` (see running-state.ts). */
export const simulatorRunningTopic = (topicPrefix: string, id: string) =>
  join(topicPrefix, `simulator/${id}/running`);

/** Position is published only while a run has a fix: older values are shown as unavailable. */
const STALE_AFTER_SECONDS = 30;

export function simulatorDiscovery(o: SimulatorDiscoveryOptions): Record<string, unknown> {
  const uid = simulatorObjectId(o.simulatorId);
  const position = join(o.topicPrefix, `simulator/${o.simulatorId}/position`);
  const running = simulatorRunningTopic(o.topicPrefix, o.simulatorId);
  const availability = join(o.topicPrefix, `simulator/${o.simulatorId}/availability`);
  const measured = (key: string, name: string, extra: Record<string, unknown>) => ({
    p: 'sensor',
    name,
    unique_id: `${uid}_${key}`,
    state_topic: position,
    state_class: 'measurement',
    expire_after: STALE_AFTER_SECONDS,
    ...extra,
  });
  return {
    dev: {
      ids: [uid],
      name: o.simulatorId === 'main' ? 'Outpost simulator' : `Outpost simulator ${o.simulatorId}`,
      mf: 'Outpost',
      mdl: 'GPS simulator',
      sw: o.version,
    },
    o: { name: 'Outpost', sw: o.version },
    cmps: {
      position: {
        p: 'device_tracker',
        name: 'Position',
        unique_id: `${uid}_position`,
        icon: 'mdi:airplane',
        source_type: 'gps',
        json_attributes_topic: position,
        // HA moves a GPS tracker from the latitude, longitude and gps_accuracy attributes.
        json_attributes_template:
          "{{ {'latitude': value_json.lat, 'longitude': value_json.lon, 'gps_accuracy': 10, " +
          "'altitude': value_json.altitude_ft, 'speed': value_json.speed_kts, 'course': value_json.heading} | to_json }}",
      },
      altitude: measured('altitude', 'Altitude', {
        device_class: 'distance',
        unit_of_measurement: 'ft',
        suggested_display_precision: 0,
        value_template: '{{ value_json.altitude_ft }}',
      }),
      speed: measured('speed', 'Speed', {
        device_class: 'speed',
        unit_of_measurement: 'kn',
        suggested_display_precision: 0,
        value_template: '{{ value_json.speed_kts }}',
      }),
      heading: measured('heading', 'Heading', {
        // Home Assistant (2025.2 on) averages an angle sensor on the circle: 359° and 1° give 0°, not 180°.
        state_class: 'measurement_angle',
        icon: 'mdi:compass',
        unit_of_measurement: '°',
        suggested_display_precision: 0,
        value_template: '{{ value_json.heading }}',
      }),
      running: {
        p: 'binary_sensor',
        name: 'Running',
        unique_id: `${uid}_running`,
        device_class: 'running',
        state_topic: running,
        value_template: "{{ 'ON' if value_json.running else 'OFF' }}",
      },
    },
    availability: [{ topic: availability, payload_available: 'online', payload_not_available: 'offline' }],
    qos: 0,
  };
}
