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
  .strict()
  // One operating mode at a time (the server refuses two set true), said in the description too.
  .meta({
    not: {
      anyOf: [
        ['standalone', 'sender'],
        ['standalone', 'receiver'],
        ['standalone', 'rebroadcaster'],
        ['sender', 'receiver'],
        ['sender', 'rebroadcaster'],
        ['receiver', 'rebroadcaster'],
      ].map(([a, b]) => ({
        required: [a, b],
        properties: { [a as string]: { enum: [true] }, [b as string]: { enum: [true] } },
      })),
    },
  });
export type ModeFlags = z.infer<typeof ModeFlags>;
/** Every flag, as the status reports them; a request may send any subset (ModeFlags). */
export type AllModeFlags = Required<ModeFlags>;

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

/**
 * A serial port: `/dev/tty<driver><n>` (ttyUSB0, ttyACM1, ttyS0, ttyAMA0), the Pi's `/dev/serial<n>`
 * aliases, a udev link under `/dev/serial/by-id/` or `by-path/`, or a pseudo-terminal `/dev/pts/<n>` (a
 * virtual serial port, as socat or a sim rig's COM bridge makes). Never a console (`/dev/tty`,
 * `/dev/console`, the virtual terminals `/dev/tty<n>`) nor any other device node: the simulator writes
 * to what it opens.
 */
export const SerialDevicePath = z
  .string()
  .max(255)
  .regex(
    /^\/dev\/(tty[A-Za-z][A-Za-z0-9._-]*|serial\d+|serial\/by-(id|path)\/[A-Za-z0-9._:+-]+|pts\/\d+)$/,
    'expected a serial port: /dev/tty<driver><n> (e.g. /dev/ttyUSB0), /dev/serial<n> or /dev/serial/by-id/…',
  )
  // `..` would walk out of /dev (e.g. /dev/../etc/shadow).
  .refine((p) => !p.split('/').includes('..'), 'expected a /dev/ path without ".." segments')
  .refine((p) => p !== '/dev/ttyprintk', 'expected a serial port, not the kernel log');
export const SerialConfig = z
  .object({
    /** null clears the selection. */
    device: SerialDevicePath.nullable(),
    baudrate: z.union([4800, 9600, 19200, 38400, 57600, 115200, 230400].map((b) => z.literal(b))),
  })
  .partial()
  .strict();
export const SerialSelect = z.object({ device: SerialDevicePath }).strict();

const Port = z.number().int().min(1).max(65535);
const OCTET = '(25[0-5]|2[0-4]\\d|1?\\d?\\d)';
const IPV4 = `${OCTET}(\\.${OCTET}){3}`;
/** An IPv4 address, a last-octet range `a.b.c.10-20`, or a full range `a.b.c.10-a.b.c.20`. */
export const Ipv4OrRange = z
  .string()
  .max(40)
  .regex(new RegExp(`^${IPV4}(-(${OCTET}|${IPV4}))?$`), 'expected an IPv4 address or range a.b.c.d-e');
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
    /** What the sender publishes: NMEA sentences, or JSON lines another simulator's receiver ingests. */
    sender_format: z.enum(['nmea', 'json']),
    listen_port: Port,
    efb_enabled: z.boolean(),
    efb_sim_name: z.string().max(32),
    efb_broadcast: z.boolean(),
    efb_broadcast_address: Ipv4,
    efb_ip_enabled: z.boolean(),
    efb_target_ips: z.array(Ipv4OrRange).max(64),
    /** GDL 90 on GDL90_PORT to the same broadcast address and tablets as the XGPS output. */
    gdl90_enabled: z.boolean(),
    /** Simulated traffic targets around the ownship in the GDL 90 stream (Traffic Report, ID 20); 0 is off. */
    gdl90_traffic: z.number().int().min(0).max(8),
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
  /** Feet MSL; 0 when the elevation is not known (see elevation_known). */
  elevation_ft: z.number().int(),
  /** False for the airports whose source record has no elevation: selecting one starts at 0 ft. */
  elevation_known: z.boolean(),
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

/**
 * What one NMEA sentence (GGA, RMC, VTG or GLL) received by a receiver carries, after decoding: each
 * sentence fills only some fields, so all are optional. Same bounds as ReceiverJson.
 */
export const NmeaFixFields = z
  .object({
    lat: Latitude,
    lon: Longitude,
    altitude_ft: z.number().min(-1500).max(100000),
    speed_kts: z.number().min(0).max(5000),
    /** Track over ground, degrees true. */
    heading: z.number().min(0).max(360),
  })
  .partial()
  .strict();
export type NmeaFixFields = z.infer<typeof NmeaFixFields>;

/** POST /api/config/rates: the ramp rates, live while running. */
export const RampRates = z
  .object({
    altitude_rate_ft_per_2sec: z.number().min(0.001).max(1_000_000),
    airspeed_rate_kts_per_sec: z.number().min(0.001).max(10_000),
    heading_rate_deg_per_sec: z.number().min(0.001).max(360),
  })
  .partial()
  .strict();
export type RampRates = z.infer<typeof RampRates>;

/**
 * A 422 answer of the simulator: `detail` joins the messages with "; ", `messages` lists them one by
 * one (the start checks' messages, or one per bad field).
 */
export const ValidationErrorBody = z.object({ detail: z.string(), messages: z.array(z.string()) });

/** A 409 answer: why the request cannot be done now; `banner` when a server error at start caused it. */
export const ConflictBody = z.object({ detail: z.string(), banner: z.string().optional() });

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
  /** SIMULATOR_IP: an address or a host name. */
  simulator_ip: z.string().max(253).nullable().optional(),
  timestamp_ms: UnixMillis,
});
export type SimulatorHeartbeat = z.infer<typeof SimulatorHeartbeat>;

/** Client → server WebSocket messages on the simulator's /ws. */
export const SimulatorWsClientMessage = z.object({ type: z.literal('ping') }).loose();

/** POST /api/auth/login, POST /api/auth/logout and GET /api/auth/check answer with this. */
export const AuthStatus = z.object({
  authenticated: z.boolean(),
  username: z.string().nullable(),
  bypass_auth: z.boolean(),
});
export type AuthStatus = z.infer<typeof AuthStatus>;

/**
 * GET /api/status, and the answer of every control/config/position call: the full state. The named
 * fields are stable; the nested objects (network, receiver, outputs) carry more detail.
 */
export const SimulatorStatus = z
  .object({
    running: z.boolean(),
    starting: z.boolean(),
    mode: OperatingMode.nullable(),
    modes: z.record(z.string(), z.boolean()),
    nmea: z.record(z.string(), z.boolean()),
    network: z.record(z.string(), z.unknown()),
    serial: z.object({ device: z.string().nullable(), baudrate: z.number().int() }),
    airport_icao: z.string().nullable(),
    lat: z.number(),
    lon: z.number(),
    altitude_ft: z.number(),
    speed_kts: z.number(),
    heading: z.number(),
    target_altitude_ft: z.number(),
    target_speed_kts: z.number(),
    target_heading: z.number(),
    /** The start error (serial cannot be opened, address in use, connection refused) or a lost output. */
    banner: z.string().nullable(),
    receiver: z.record(z.string(), z.unknown()),
    outputs: z.record(z.string(), z.unknown()).nullable(),
  })
  .loose();
export type SimulatorStatus = z.infer<typeof SimulatorStatus>;

export const AirportResponse = z.object({ airport: Airport });
export const AirportsResponse = z.object({ airports: z.array(Airport) });

/** One end of a runway (OurAirports `le_*` / `he_*`): its threshold and the true heading from it. */
export const RunwayEnd = z.object({
  /** The end's designator, e.g. "28R". */
  ident: z.string(),
  /** The threshold (runway end) coordinates. */
  lat: z.number(),
  lon: z.number(),
  /** Feet MSL at the threshold; null where the source has none. */
  elevation_ft: z.number().int().nullable(),
  /** Degrees true along the runway from this end (from the other end's position where the source gives none). */
  heading_deg: z.number(),
});
export type RunwayEnd = z.infer<typeof RunwayEnd>;

/** A runway of the simulator's airport table: both ends, size (null where unknown) and surface as the source spells it. */
export const Runway = z.object({
  icao: z.string(),
  length_ft: z.number().int().nullable(),
  width_ft: z.number().int().nullable(),
  surface: z.string(),
  le: RunwayEnd,
  he: RunwayEnd,
});
export type Runway = z.infer<typeof Runway>;
export const RunwaysResponse = z.object({ runways: z.array(Runway) });

/** A runway end of an airport, as POST /api/position/runway and a flight plan's first point name it. */
export const RunwayIdent = z
  .string()
  .trim()
  .min(1)
  .max(8)
  .regex(/^[A-Za-z0-9/. -]{1,8}$/, 'expected a runway end such as 28R');

/** POST /api/position/runway: line up on the threshold of `runway` at `airport`, on its heading. */
export const LineUpRequest = z.object({ airport: Icao, runway: RunwayIdent }).strict();
export type LineUpRequest = z.infer<typeof LineUpRequest>;

export const SerialDevice = z.object({
  device: z.string(),
  path: z.string(),
  name: z.string(),
  manufacturer: z.string().nullable(),
  serial_number: z.string().nullable(),
  vendor_id: z.string().nullable(),
  product_id: z.string().nullable(),
});
export type SerialDevice = z.infer<typeof SerialDevice>;
export const SerialDevicesResponse = z.object({ devices: z.array(SerialDevice) });

/**
 * Server → client WebSocket messages on the simulator's /ws: `{type, data}` with type
 * `status_update` (full state on connect, then partial state on each change), `nmea_output`
 * (`data.sentences`, 1 Hz while running), `position_update` (1 Hz while running) or `pong`.
 */
export const SimulatorWsServerMessage = z.object({
  type: z.enum(['status_update', 'nmea_output', 'position_update', 'pong']),
  data: z.record(z.string(), z.unknown()),
});

/** Retained `simulator/<id>/running`, in every mode (the heartbeat is sent by rebroadcasters only). */
export const SimulatorRunning = z.object({ running: z.boolean() });
export type SimulatorRunning = z.infer<typeof SimulatorRunning>;

/**
 * One point of a flight plan: an airport of the simulator's table, coordinates, or (first point only)
 * a runway end of an airport, where the flight starts lined up on the threshold.
 */
export const FlightPlanPoint = z.union([
  z.object({ icao: Icao }).strict(),
  z.object({ lat: Latitude, lon: Longitude, name: z.string().max(32).optional() }).strict(),
  z.object({ icao: Icao, runway: RunwayIdent }).strict(),
]);
export type FlightPlanPoint = z.infer<typeof FlightPlanPoint>;

/** PUT /api/flightplan: the route and its profile. Rates are what a light aircraft to a jet can fly. */
export const FlightPlanRequest = z
  .object({
    points: z
      .array(FlightPlanPoint)
      .min(2, 'a flight plan needs at least 2 points')
      .max(100, 'a flight plan has at most 100 points'),
    cruise_altitude_ft: z.number().min(500).max(60_000),
    cruise_speed_kts: z.number().min(40).max(1_000),
    climb_rate_fpm: z.number().min(100).max(10_000).default(700),
    descent_rate_fpm: z.number().min(100).max(10_000).default(500),
    loop: z.boolean().default(false),
  })
  .strict()
  .superRefine((req, ctx) => {
    req.points.forEach((p, i) => {
      if (i > 0 && 'runway' in p) {
        ctx.addIssue({
          code: 'custom',
          path: ['points', i, 'runway'],
          message: 'only the first point can be a runway (the flight starts lined up on it)',
        });
      }
    });
  });
export type FlightPlanRequest = z.infer<typeof FlightPlanRequest>;

export const FlightPlanWaypoint = z.object({
  name: z.string(),
  icao: z.string().nullable(),
  lat: z.number(),
  lon: z.number(),
  elevation_ft: z.number(),
  /** The first point only, when it is a runway: the end the flight starts lined up on (its threshold is lat/lon). */
  runway: z.string().optional(),
});

/** GET /api/flightplan (and the answer of PUT and DELETE): the plan and where the flight is on it. */
export const FlightPlanStatus = z.object({
  active: z.boolean(),
  plan: z
    .object({
      waypoints: z.array(FlightPlanWaypoint),
      cruise_altitude_ft: z.number(),
      cruise_speed_kts: z.number(),
      climb_rate_fpm: z.number(),
      descent_rate_fpm: z.number(),
      loop: z.boolean(),
    })
    .nullable(),
  progress: z
    .object({
      phase: z.enum(['takeoff', 'climb', 'cruise', 'descent', 'arrived']),
      lap: z.number().int(),
      /** 1-based leg number and its ends. */
      leg: z.number().int(),
      from: z.string(),
      to: z.string(),
      leg_distance_to_go_nm: z.number(),
      distance_to_go_nm: z.number(),
      /** Estimated arrival at the last point; null once arrived. */
      eta: z.string().nullable(),
    })
    .nullable(),
});
export type FlightPlanStatus = z.infer<typeof FlightPlanStatus>;

/** Uploads larger than this answer 413. */
export const REPLAY_MAX_BYTES = 10 * 1024 * 1024;

const ReplaySpeed = z.coerce.number().min(1).max(16);
const QueryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

/** POST /api/replay?format=&speed=&loop=&paused= with the file as the body. */
export const ReplayUploadQuery = z
  .object({
    /** Unset: GPX when the file is XML with a <gpx> element, else an NMEA log. */
    format: z.enum(['nmea', 'gpx']).optional(),
    speed: ReplaySpeed.default(1),
    loop: QueryBool.default(false),
    paused: QueryBool.default(false),
  })
  .strict();

/** POST /api/replay/control: any of these, applied at once. */
export const ReplayControl = z
  .object({
    speed: z.number().min(1).max(16),
    paused: z.boolean(),
    loop: z.boolean(),
    /** Seconds into the track. */
    position_s: z.number().min(0),
  })
  .partial()
  .strict();
export type ReplayControl = z.infer<typeof ReplayControl>;

/** GET /api/replay, and the answer of every replay call. */
export const ReplayStatus = z.object({
  loaded: z.boolean(),
  format: z.enum(['nmea', 'gpx']).nullable(),
  points: z.number().int(),
  /** Lines (NMEA) or points (GPX) that did not read and were left out. */
  skipped: z.number().int(),
  problems: z.array(z.string()),
  duration_s: z.number(),
  position_s: z.number(),
  speed: z.number(),
  paused: z.boolean(),
  loop: z.boolean(),
  lap: z.number().int(),
  finished: z.boolean(),
  /** Time of the first point (null for a GPX without times). */
  started_at: z.string().nullable(),
});
export type ReplayStatus = z.infer<typeof ReplayStatus>;

/** GET /api/airports/near: the airports around a point, nearest first (for the console's map). */
export const AirportNearQuery = z
  .object({
    // Required together: coerced numbers would otherwise be described as optional. A missing one is
    // coerced to NaN, which zod's own message would name; the user is told what to send instead.
    lat: z.coerce
      .number({ error: 'a number is required (lat and lon together)' })
      .min(-90)
      .max(90)
      .meta({ param: { required: true } }),
    lon: z.coerce
      .number({ error: 'a number is required (lat and lon together)' })
      .min(-180)
      .max(180)
      .meta({ param: { required: true } }),
    radius_nm: z.coerce.number().min(1).max(500).default(50),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();

/** GET /api/runways/near: the runways around a point, nearest first (for the console's map at airport scale). */
export const RunwayNearQuery = z
  .object({
    lat: z.coerce
      .number({ error: 'a number is required (lat and lon together)' })
      .min(-90)
      .max(90)
      .meta({ param: { required: true } }),
    lon: z.coerce
      .number({ error: 'a number is required (lat and lon together)' })
      .min(-180)
      .max(180)
      .meta({ param: { required: true } }),
    radius_nm: z.coerce.number().min(0.5).max(100).default(10),
    limit: z.coerce.number().int().min(1).max(500).default(200),
  })
  .strict();
