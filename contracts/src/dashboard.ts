import { z } from 'zod';
import { UnixMillis } from './common.js';
import { OperatingMode } from './enums.js';
import { HealthAlarm } from './health.js';

/**
 * What the dashboard knows of one simulator, in a word or two: `offline` (process down or never seen),
 * `online, idle` (process up by its availability, no heartbeat or position: only a
 * rebroadcaster sends heartbeats unless HEARTBEAT_ALL_MODES is set, so an idle simulator in any other mode
 * looks like this), `stopped` (emulator not running), `no input` (a
 * receiver or rebroadcaster that has had no input yet), `feed lost` (its input stopped more than 5 s
 * ago), `online`.
 */
export const FleetSimulatorStatus = z.enum([
  'offline',
  'online, idle',
  'stopped',
  'no input',
  'feed lost',
  'online',
]);
export type FleetSimulatorStatus = z.infer<typeof FleetSimulatorStatus>;

/**
 * One simulator in the dashboard's fleet_state: the heartbeat fields, the last position and ages.
 * `online`: availability not `offline` (the last will), heartbeat younger than 3 s, the input age it
 * reports (if any) at most 5 s, and position
 * (position topic, or a heartbeat carrying lat/lon) younger than 5 s. `available`: the simulator's
 * MQTT availability said `online` (or it sent a heartbeat since). Null fields: never reported.
 */
export const FleetSimulator = z.object({
  id: z.string(),
  online: z.boolean(),
  available: z.boolean(),
  sim_reachable: z.boolean().nullable(),
  receiving_udp: z.boolean().nullable(),
  uptime_seconds: z.number().int().nullable(),
  /** The spec's heartbeat field name for the same value (seconds). */
  uptime: z.number().int().nullable(),
  mode: OperatingMode.nullable(),
  running: z.boolean().nullable(),
  lat: z.number().nullable(),
  lon: z.number().nullable(),
  altitude_ft: z.number().nullable(),
  speed_kts: z.number().nullable(),
  heading: z.number().nullable(),
  last_heartbeat_age_seconds: z.number().nullable(),
  last_position_age_seconds: z.number().nullable(),
  last_input_age_seconds: z.number().nullable(),
  status: FleetSimulatorStatus,
  /** A receiver or rebroadcaster whose last input is at most 5 s old; null when it reports no input age. */
  receiving_input: z.boolean().nullable(),
  /** SIMULATOR_IP as the heartbeat reports it (the rig the simulator pings). */
  simulator_ip: z.string().nullable(),
});
export type FleetSimulator = z.infer<typeof FleetSimulator>;

/** A generator site (controller + relay node) on the same bus; `physical_safety_engaged` is the EPO. */
export const FleetGeneratorSite = z.object({
  id: z.string(),
  controller_online: z.boolean(),
  running: z.boolean().nullable(),
  armed: z.boolean().nullable(),
  relaynode_online: z.boolean().nullable(),
  relay_on: z.boolean().nullable(),
  failsafe_triggered: z.boolean().nullable(),
  physical_safety_engaged: z.boolean().nullable(),
  /** The controller's standing generator health alarm; absent while there is none. */
  health_alarm: HealthAlarm.optional(),
  /** Where the site is, from the dashboard's SITE_LOCATIONS; absent when it is not configured. */
  lat: z.number().min(-90).max(90).optional(),
  lon: z.number().min(-180).max(180).optional(),
});
export type FleetGeneratorSite = z.infer<typeof FleetGeneratorSite>;

/** Dashboard `/ws` message and retained `dashboard/<id>/fleet`. */
export const FleetState = z.object({
  type: z.literal('fleet_state'),
  timestamp_ms: UnixMillis,
  simulators: z.array(FleetSimulator),
  generators: z.array(FleetGeneratorSite).default([]),
});
export type FleetState = z.infer<typeof FleetState>;
