import { z } from 'zod';
import { CONDITION_NAMES, TRIGGERS } from './names.js';

export { TRIGGERS } from './names.js';
export const Trigger = z.enum(TRIGGERS);
export type Trigger = z.infer<typeof Trigger>;

/** Generator-control spec: "Stop reason values". */
export const STOP_REASONS = [
  'bms',
  'manual',
  'scheduled_end',
  'exercise_end',
  'comm_loss',
  'override',
  'error',
  'max_runtime',
  // Beyond the spec: the running feedback fell while Outpost still commanded the run.
  'unexpected_stop',
  // Beyond the spec: automation was disarmed during the run. The relay node obeys a disarm at once (a
  // relay is ON only under a lease that says armed), so the run ends there rather than go on unpowered.
  'disarmed',
  // Start conditions: the last condition holding the run met its stop value; or the grid came back.
  ...CONDITION_NAMES,
  'grid_present',
  // The generator's own controller (read over Modbus) raised a shutdown or electrical trip alarm.
  'genset_shutdown',
] as const;
export const StopReason = z.enum(STOP_REASONS);
export type StopReason = z.infer<typeof StopReason>;

export const OVERRIDE_TYPES = ['force_run', 'force_stop'] as const;
export const OverrideType = z.enum(OVERRIDE_TYPES);
export type OverrideType = z.infer<typeof OverrideType>;

export const GENERATOR_STATES = ['idle', 'starting', 'running', 'stopping'] as const;
export const GeneratorStateName = z.enum(GENERATOR_STATES);
export type GeneratorStateName = z.infer<typeof GeneratorStateName>;

/** Controller notification events, configurable through PUT /api/system-notifications/{event}. */
export const NOTIFICATION_EVENTS = [
  'generator_started',
  'generator_stopped',
  'slave_connected',
  'slave_disconnected',
  'override_enabled',
  'override_disabled',
  'exercise_started',
  'exercise_completed',
  'max_runtime_reached',
  'lockout_activated',
  'lockout_cleared',
  'boot_disarmed_failsafe',
  'hardware_safety_engaged_relaynode',
  'hardware_safety_released_relaynode',
  // Beyond the spec's list: its HOA rule 4 has position changes reach people (not during the boot delay).
  'hoa_position_changed',
  // Generator health (running feedback, engine hours, service reminders).
  'fail_to_start',
  'unexpected_stop',
  'external_run',
  'exercise_failed',
  'maintenance_upcoming',
  'maintenance_due',
  'disarmed_reminder',
  'override_reminder',
  // The safety link: a run's relay ON not confirmed by the relay node; a node report that did not
  // verify; a lease the connected controller could not publish.
  'relay_not_confirmed',
  'relay_node_report_unverified',
  'lease_not_published',
  // Start conditions: a value source fell silent past its stale_after (and when it is back).
  'condition_source_stale',
  'condition_source_restored',
  // The generator's own controller over Modbus: its mode selector left Auto (and is back), and its
  // alarms by level.
  'genset_not_in_auto',
  'genset_in_auto',
  'genset_warning',
  'genset_shutdown',
  'genset_electrical_trip',
] as const;
export const NotificationEvent = z.enum(NOTIFICATION_EVENTS);
export type NotificationEvent = z.infer<typeof NotificationEvent>;

/** Variables a notification template may use, per the spec's "Template variables". */
export const GENERATOR_TEMPLATE_VARIABLES = [
  'run_id',
  'start_time',
  'stop_time',
  'runtime',
  'reason',
  'fuel_gallons',
  'fuel_type',
] as const;
export const SYSTEM_TEMPLATE_VARIABLES = ['timestamp', 'status', 'details'] as const;

/** Relay node notification events. */
export const RELAYNODE_EVENTS = ['failsafe_triggered', 'heartbeat_restored'] as const;
export const RelaynodeEvent = z.enum(RELAYNODE_EVENTS);
export type RelaynodeEvent = z.infer<typeof RelaynodeEvent>;

export const CHANNEL_TYPES = [
  'telegram',
  'slack',
  'discord',
  'email',
  'pushover',
  'apprise',
  'webhook',
] as const;
export const ChannelType = z.enum(CHANNEL_TYPES);
export type ChannelType = z.infer<typeof ChannelType>;

export const FUEL_TYPES = ['lpg', 'natural_gas', 'diesel'] as const;
export const FuelType = z.enum(FUEL_TYPES);
export type FuelType = z.infer<typeof FuelType>;

export const EXPECTED_LOADS = [50, 100] as const;
export const ExpectedLoad = z.union([z.literal(50), z.literal(100)]);
export type ExpectedLoad = z.infer<typeof ExpectedLoad>;

export const BOOT_ARMING_POLICIES = ['fail_safe', 'preserve_state'] as const;
export const BootArmingPolicy = z.enum(BOOT_ARMING_POLICIES);
export type BootArmingPolicy = z.infer<typeof BootArmingPolicy>;

/** HOA selector: Fault is both contacts closed, reported as Fault and treated as Auto. */
export const HOA_POSITIONS = ['auto', 'quiet', 'run', 'fault'] as const;
export const HoaPosition = z.enum(HOA_POSITIONS);
export type HoaPosition = z.infer<typeof HoaPosition>;

export const RELAY_NODE_CONNECTION_STATUSES = ['unknown', 'connected', 'disconnected'] as const;
export const RelayNodeConnectionStatus = z.enum(RELAY_NODE_CONNECTION_STATUSES);
export type RelayNodeConnectionStatus = z.infer<typeof RelayNodeConnectionStatus>;

export const REBOOT_DAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'daily',
] as const;
export const RebootDay = z.enum(REBOOT_DAYS);
export type RebootDay = z.infer<typeof RebootDay>;

/** GPS simulator operating modes (AUTO_START_MODE values). */
export const OPERATING_MODES = ['standalone', 'sender', 'receiver', 'rebroadcaster'] as const;
export const OperatingMode = z.enum(OPERATING_MODES);
export type OperatingMode = z.infer<typeof OperatingMode>;

export const NMEA_SENTENCES = [
  'gpgga',
  'gprmc',
  'gpgll',
  'gpgsa',
  'gpgsv',
  'gphdt',
  'gpvtg',
  'gpzda',
] as const;
export const NmeaSentence = z.enum(NMEA_SENTENCES);
export type NmeaSentence = z.infer<typeof NmeaSentence>;

export const NETWORK_PROTOCOLS = ['udp', 'tcp'] as const;
export const NetworkProtocol = z.enum(NETWORK_PROTOCOLS);
export type NetworkProtocol = z.infer<typeof NetworkProtocol>;

/** Webhook event name for a start: generator.started.{trigger}. */
export const startedEventName = (trigger: Trigger): `generator.started.${Trigger}` =>
  `generator.started.${trigger}`;
/** Webhook event name for a stop: generator.stopped.{reason}. */
export const stoppedEventName = (reason: StopReason): `generator.stopped.${StopReason}` =>
  `generator.stopped.${reason}`;
