import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { generator, notifier, relaynode, simulator } from '../src/index.js';
import { FleetState } from '../src/dashboard.js';
import { CONDITION_NAMES } from '../src/conditions.js';
import { NOTIFICATION_EVENTS, NotificationEvent, StopReason, Trigger } from '../src/enums.js';

interface Case {
  name: string;
  schema: z.ZodType;
  valid: unknown;
  /** Each entry replaces one field of `valid` with a bad value. */
  bad: Record<string, unknown>;
}

const now = 1_780_000_000_000;
const desired = {
  epoch: '12',
  seq: 4,
  issued_at: now,
  expires_at: now + 30_000,
  heartbeat_interval: 10,
  armed: true,
  relay_on: true,
  challenge: 'c'.repeat(22),
  sig: 's'.repeat(86),
};

const cases: Case[] = [
  {
    name: 'StartRequest',
    schema: generator.StartRequest,
    valid: { duration_minutes: 30, notes: 'weekly test' },
    bad: { duration_minutes: 1441, notes: 'x'.repeat(501), extra: 1 },
  },
  {
    name: 'StartRequest lower bound',
    schema: generator.StartRequest,
    valid: {},
    bad: { duration_minutes: 0 },
  },
  {
    name: 'StopRequest',
    schema: generator.StopRequest,
    valid: { reason: 'done' },
    bad: { reason: 'x'.repeat(201) },
  },
  {
    name: 'OverrideEnableRequest',
    schema: generator.OverrideEnableRequest,
    valid: { override_type: 'force_stop' },
    bad: { override_type: 'force_maybe' },
  },
  {
    name: 'ClearLockoutRequest',
    schema: generator.ClearLockoutRequest,
    valid: { acknowledge: true },
    bad: { acknowledge: 'yes' },
  },
  {
    name: 'FuelSettings',
    schema: generator.FuelSettings,
    valid: { fuel_type: 'diesel', expected_load: 50, gph_at_50: 0.8, gph_at_100: 1.5 },
    bad: { fuel_type: 'petrol', expected_load: 75, gph_at_50: -1 },
  },
  {
    name: 'RuntimeLimitSettings',
    schema: generator.RuntimeLimitSettings,
    valid: {
      runtime_limits_enabled: true,
      max_run_minutes: 480,
      cooldown_minutes: 60,
      lockout_on_max_runtime: true,
    },
    bad: { max_run_minutes: 0, cooldown_minutes: 1.5, runtime_limits_enabled: 'true' },
  },
  {
    name: 'ScheduleInput',
    schema: generator.ScheduleInput,
    valid: { name: 'Weekly', days_of_week: [1, 4], start_time: '06:30', duration_minutes: 20, enabled: true },
    bad: { start_time: '24:00', days_of_week: [7], name: 'x'.repeat(101) },
  },
  {
    name: 'ControllerSetCommand',
    schema: generator.ControllerSetCommand,
    valid: { command: 'start', duration_minutes: 10 },
    bad: { command: 'explode', duration_minutes: 99999 },
  },
  {
    name: 'DesiredState',
    schema: relaynode.DesiredState,
    valid: desired,
    bad: { seq: -1, relay_on: 'on', heartbeat_interval: 0, epoch: 'x'.repeat(65) },
  },
  {
    name: 'HeartbeatRequest',
    schema: relaynode.HeartbeatRequest,
    valid: { heartbeat_interval: 10, armed: true, relay_on: false },
    bad: { heartbeat_interval: 'ten', armed: null },
  },
  {
    name: 'RebootSchedule',
    schema: relaynode.RebootSchedule,
    valid: { enabled: true, day: 'sunday', hour: 3, minute: 15 },
    bad: { day: 'someday', hour: 24, minute: 60 },
  },
  {
    name: 'RelaynodeNotificationSettings',
    schema: relaynode.RelaynodeNotificationSettings,
    valid: { failsafe_cooldown_minutes: 30, restored_cooldown_minutes: 5 },
    bad: { failsafe_cooldown_minutes: -1 },
  },
  {
    name: 'WifiAddRequest',
    schema: relaynode.WifiAddRequest,
    valid: { ssid: 'ShedWifi', password: 'secret-pass', auto_connect: true },
    bad: { ssid: 'x'.repeat(33), password: 'p'.repeat(64) },
  },
  {
    name: 'ChannelInput (email)',
    schema: notifier.ChannelInput,
    valid: {
      name: 'Ops mail',
      channel_type: 'email',
      config: {
        smtp_host: '127.0.0.1',
        smtp_port: 2525,
        username: '',
        password: '',
        from_email: 'gen@example.org',
        to_emails: ['ops@example.org'],
      },
      enabled: true,
    },
    bad: { channel_type: 'carrier_pigeon', name: '' },
  },
  {
    name: 'GroupInput',
    schema: notifier.GroupInput,
    valid: { name: 'Ops', description: 'on call', channel_ids: [1, 2], enabled: true },
    bad: { channel_ids: ['one'], description: 'x'.repeat(501) },
  },
  {
    name: 'SystemNotificationSetting',
    schema: notifier.SystemNotificationSetting,
    valid: {
      enabled: true,
      channel_ids: [1],
      group_ids: [],
      title_template: 'Started',
      body_template: 'Run {{run_id}}',
    },
    bad: { enabled: 'sometimes', body_template: 'x'.repeat(4001) },
  },
  {
    name: 'PositionUpdate',
    schema: simulator.PositionUpdate,
    valid: { lat: 47.45, lon: -122.31, altitude_ft: 433, speed_kts: 0, heading: 360, airport_icao: 'KSEA' },
    bad: { lat: 91, lon: -181, heading: 361, airport_icao: 'K$EA', speed_kts: -1 },
  },
  {
    name: 'ModeFlags',
    schema: simulator.ModeFlags,
    valid: { standalone: true, usb_output: false },
    bad: { standalone: 'yes', warp: true },
  },
  { name: 'NmeaSelection', schema: simulator.NmeaSelection, valid: { gpgga: true }, bad: { gpxyz: true } },
  {
    name: 'NetworkConfig',
    schema: simulator.NetworkConfig,
    valid: { protocol: 'udp', target_ip: '127.0.0.1', port: 12000, efb_target_ips: ['127.0.0.10-20'] },
    bad: { protocol: 'sctp', port: 70000, efb_target_ips: ['300.1.1.1'], efb_sim_name: 'x'.repeat(33) },
  },
  {
    name: 'SerialConfig',
    schema: simulator.SerialConfig,
    valid: { device: '/dev/ttyUSB0', baudrate: 115200 },
    bad: { device: 'COM3', baudrate: 12345 },
  },
  {
    name: 'ControlRequest',
    schema: simulator.ControlRequest,
    valid: { action: 'start' },
    bad: { action: 'pause' },
  },
  {
    name: 'FleetState',
    schema: FleetState,
    valid: { type: 'fleet_state', timestamp_ms: now, simulators: [], generators: [] },
    bad: { type: 'fleet', simulators: {} },
  },
];

describe.each(cases)('$name', ({ schema, valid, bad }) => {
  it('accepts a valid example', () => {
    expect(schema.safeParse(valid).success).toBe(true);
  });
  it.each(Object.entries(bad))('rejects a bad %s', (field, value) => {
    const result = schema.safeParse({ ...(valid as object), [field]: value });
    expect(result.success).toBe(false);
  });
});

describe('enums', () => {
  it('hold exactly the values of the spec', () => {
    expect(Trigger.options).toEqual([
      'bms',
      'manual',
      'scheduled',
      'exercise',
      'external',
      ...CONDITION_NAMES,
    ]);
    expect(StopReason.options).toEqual([
      'bms',
      'manual',
      'scheduled_end',
      'exercise_end',
      'comm_loss',
      'override',
      'error',
      'max_runtime',
      'unexpected_stop',
      'disarmed',
      ...CONDITION_NAMES,
      'grid_present',
      'genset_shutdown',
    ]);
    // The spec's 14, then hoa_position_changed (its HOA rule 4), the generator health events, the
    // safety link's relay_not_confirmed, relay_node_report_unverified and lease_not_published, then the
    // start conditions' source warnings, then the generator's own controller (mode and alarms).
    expect(NOTIFICATION_EVENTS).toHaveLength(33);
    expect(NOTIFICATION_EVENTS.slice(23, 26)).toEqual([
      'relay_not_confirmed',
      'relay_node_report_unverified',
      'lease_not_published',
    ]);
    expect(NOTIFICATION_EVENTS.slice(26, 28)).toEqual([
      'condition_source_stale',
      'condition_source_restored',
    ]);
    // The generator's own controller: its mode, then its alarms by level.
    expect(NOTIFICATION_EVENTS.slice(28)).toEqual([
      'genset_not_in_auto',
      'genset_in_auto',
      'genset_warning',
      'genset_shutdown',
      'genset_electrical_trip',
    ]);
    expect(NOTIFICATION_EVENTS[14]).toBe('hoa_position_changed');
    expect(NOTIFICATION_EVENTS).toContain('fail_to_start');
    expect(NotificationEvent.safeParse('generator_exploded').success).toBe(false);
  });
});

describe('serial device paths', () => {
  it.each([
    '/dev/ttyUSB0',
    '/dev/pts/3',
    '/dev/serial/by-id/usb-FTDI_FT232R-if00-port0',
    '/dev/serial/by-path/platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.3:1.0-port0',
    '/dev/ttyACM1',
    '/dev/ttyS0',
    '/dev/ttyAMA0',
    '/dev/serial0',
  ])('accepts %s', (p) => {
    expect(simulator.SerialDevicePath.safeParse(p).success).toBe(true);
  });
  it.each([
    '/dev/../etc/shadow',
    '/dev/../tmp/x',
    '/dev/serial/../../etc/passwd',
    '/tmp/ttyUSB0',
    '/dev/',
    // Consoles and other device nodes are not serial ports.
    '/dev/console',
    '/dev/tty',
    '/dev/tty0',
    '/dev/tty12',
    '/dev/ttyprintk',
    '/dev/sda',
    '/dev/mem',
    '/dev/null',
    '/dev/gpiochip0',
    '/dev/serial/by-id/../../sda',
  ])('refuses %s', (p) => {
    expect(simulator.SerialDevicePath.safeParse(p).success).toBe(false);
  });
});
