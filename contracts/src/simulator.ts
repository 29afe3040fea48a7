import { z } from 'zod';
import { UnixMillis } from './common.js';
import { NetworkProtocol, OperatingMode } from './enums.js';

export const Latitude = z.number().min(-90).max(90);
export const Longitude = z.number().min(-180).max(180);
export const Icao = z
  .string()
  .min(3)
  .max(4)
  .regex(/^[A-Za-z0-9]{3,4}$/, 'expected an ICAO code');

/** POST /api/position: any subset of the position values. */
export const PositionUpdate = z
  .object({
    lat: Latitude,
    lon: Longitude,
    altitude_ft: z.number().min(-1500).max(60000),
    speed_kts: z.number().min(0).max(2000),
    heading: z.number().min(0).max(360),
    airport_icao: Icao,
  })
  .partial()
  .strict();
export type PositionUpdate = z.infer<typeof PositionUpdate>;

export const LoginRequest = z
  .object({ username: z.string().min(1).max(100), password: z.string().min(1).max(200) })
  .strict();

export const ControlRequest = z.object({ action: z.enum(['start', 'stop']) }).strict();

export const ModeFlags = z
  .object({
    standalone: z.boolean(),
    sender: z.boolean(),
    receiver: z.boolean(),
    rebroadcaster: z.boolean(),
    usb_output: z.boolean(),
  })
  .partial()
  .strict();
export type ModeFlags = z.infer<typeof ModeFlags>;

export const NmeaSelection = z
  .object({
    gpgga: z.boolean(),
    gprmc: z.boolean(),
    gpgll: z.boolean(),
    gpgsa: z.boolean(),
    gpgsv: z.boolean(),
    gphdt: z.boolean(),
    gpvtg: z.boolean(),
    gpzda: z.boolean(),
  })
  .partial()
  .strict();
export type NmeaSelection = z.infer<typeof NmeaSelection>;

export const SerialDevicePath = z
  .string()
  .max(255)
  .regex(/^\/dev\/[A-Za-z0-9._/-]+$/, 'expected a /dev/ path');
export const SerialConfig = z
  .object({
    device: SerialDevicePath,
    baudrate: z.union([4800, 9600, 19200, 38400, 57600, 115200, 230400].map((b) => z.literal(b))),
  })
  .partial()
  .strict();
export const SerialSelect = z.object({ device: SerialDevicePath }).strict();

const Port = z.number().int().min(1).max(65535);
/** An IPv4 address, or a last-octet range `a.b.c.10-20`. */
export const Ipv4OrRange = z
  .string()
  .max(40)
  .regex(
    /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}(-(25[0-5]|2[0-4]\d|1?\d?\d))?$/,
    'expected an IPv4 address or range a.b.c.d-e',
  );
export const Ipv4 = z
  .string()
  .max(15)
  .regex(/^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/, 'expected an IPv4 address');

/** POST /api/config/network: all sender, receiver and rebroadcaster network fields. */
export const NetworkConfig = z
  .object({
    protocol: NetworkProtocol,
    target_ip: z.union([Ipv4, z.literal('')]),
    port: Port,
    listen_port: Port,
    efb_enabled: z.boolean(),
    efb_sim_name: z.string().max(32),
    efb_broadcast: z.boolean(),
    efb_broadcast_address: Ipv4,
    efb_ip_enabled: z.boolean(),
    efb_target_ips: z.array(Ipv4OrRange).max(64),
    rebroadcast_usb: z.boolean(),
    rebroadcast_udp: z.boolean(),
    rebroadcast_udp_ip: z.union([Ipv4, z.literal('')]),
    rebroadcast_udp_port: Port,
  })
  .partial()
  .strict();
export type NetworkConfig = z.infer<typeof NetworkConfig>;

export const AirportSearchQuery = z
  .object({
    q: z.string().max(100),
    limit: z.coerce.number().int().min(1).max(500).default(10),
  })
  .strict();

export const Airport = z.object({
  icao: z.string(),
  name: z.string(),
  lat: z.number(),
  lon: z.number(),
  elevation_ft: z.number().int(),
});
export type Airport = z.infer<typeof Airport>;

/** Receiver JSON input line. */
export const ReceiverJson = z
  .object({
    lat: Latitude,
    lon: Longitude,
    alt_ft: z.number().min(-1500).max(100000),
    speed_kts: z.number().min(0).max(5000),
    heading: z.number().min(-360).max(720),
    timestamp: z.union([z.number(), z.string().max(64)]).optional(),
  })
  .loose();

/** MQTT `simulator/<id>/position`, 1 Hz, flat JSON with units in key names. */
export const SimulatorPosition = z.object({
  lat: Latitude,
  lon: Longitude,
  altitude_ft: z.number(),
  speed_kts: z.number().nonnegative(),
  heading: z.number().min(0).max(360),
  airport_icao: z.string().max(8).nullable().optional(),
  timestamp_ms: UnixMillis,
});
export type SimulatorPosition = z.infer<typeof SimulatorPosition>;

/** MQTT `simulator/<id>/heartbeat`, 1 Hz. */
export const SimulatorHeartbeat = z.object({
  sim_reachable: z.boolean(),
  receiving_udp: z.boolean(),
  uptime_seconds: z.number().int().nonnegative(),
  mode: OperatingMode.nullable(),
  running: z.boolean(),
  lat: Latitude.nullable().optional(),
  lon: Longitude.nullable().optional(),
  altitude_ft: z.number().nullable().optional(),
  last_input_age_seconds: z.number().nonnegative().nullable().optional(),
  simulator_ip: z.string().max(64).nullable().optional(),
  timestamp_ms: UnixMillis,
});
export type SimulatorHeartbeat = z.infer<typeof SimulatorHeartbeat>;

/** Client → server WebSocket messages on the simulator's /ws. */
export const SimulatorWsClientMessage = z.object({ type: z.literal('ping') }).loose();
