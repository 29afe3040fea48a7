import { z } from 'zod';
import { UnixMillis } from './common.js';
import { OperatingMode } from './enums.js';

export const FleetSimulator = z.object({
  id: z.string(),
  online: z.boolean(),
  available: z.boolean(),
  sim_reachable: z.boolean().nullable(),
  receiving_udp: z.boolean().nullable(),
  uptime_seconds: z.number().int().nullable(),
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
});
export type FleetSimulator = z.infer<typeof FleetSimulator>;

export const FleetGeneratorSite = z.object({
  id: z.string(),
  controller_online: z.boolean(),
  running: z.boolean().nullable(),
  armed: z.boolean().nullable(),
  relaynode_online: z.boolean().nullable(),
  relay_on: z.boolean().nullable(),
  failsafe_triggered: z.boolean().nullable(),
  physical_safety_engaged: z.boolean().nullable(),
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
