import { baseEnvShape, envBool, envPort, mapEnvShape, parseConfig } from '@outpost/runtime';
import { z } from 'zod';

const ipv4 = z
  .string()
  .regex(/^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/, 'expected an IPv4 address');
const number = (min: number, max: number, def: number) => z.coerce.number().min(min).max(max).default(def);

/** Every variable of the spec's configuration table, with its default, plus this service's own. */
export const simulatorEnvSchema = z.object({
  ...baseEnvShape,
  ...mapEnvShape,
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PORT: envPort(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  USERNAME: z.string().min(1).max(100).default('admin'),
  PASSWORD: z.string().min(1).max(200).optional(),
  BYPASS_AUTH: envBool(false),
  /** EFB tablets, the sender's target and the rebroadcast target may be broadcast or multicast addresses. */
  ALLOW_BROADCAST_TARGETS: envBool(false),
  /** Failed logins allowed per client address within LOGIN_WINDOW_SECONDS before 429; 0 turns the limit off. */
  LOGIN_MAX_FAILURES: z.coerce.number().int().min(0).max(1000).default(5),
  LOGIN_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  // A fixed sample coordinate: San Francisco International, on the ground.
  DEFAULT_LAT: number(-90, 90, 37.618972),
  DEFAULT_LON: number(-180, 180, -122.374889),
  DEFAULT_ALT_FT: number(-1500, 60_000, 0),
  DEFAULT_AIRSPEED_KTS: number(0, 2000, 0),
  DEFAULT_HEADING: number(0, 360, 360),
  ALTITUDE_RATE_FT_PER_2SEC: number(0.001, 1_000_000, 1000),
  AIRSPEED_RATE_KTS_PER_SEC: number(0.001, 10_000, 30),
  HEADING_RATE_DEG_PER_SEC: number(0.001, 360, 3),
  AUTO_START_MODE: z
    .string()
    .transform((v) => v.trim().toLowerCase())
    .pipe(z.enum(['rebroadcaster', 'sender', 'receiver', 'standalone']))
    .optional(),
  AUTO_START_LISTEN_PORT: envPort(12000),
  AUTO_START_PROTOCOL: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['udp', 'tcp']))
    .default('udp'),
  AUTO_START_EFB_ENABLED: envBool(false),
  AUTO_START_EFB_BROADCAST: envBool(false),
  AUTO_START_EFB_TARGET_IPS: z.string().max(2000).default(''),
  AUTO_START_EFB_SIM_NAME: z.string().max(32).default(''),
  /** GDL 90 next to (or instead of) XGPS, to the AUTO_START_EFB_* targets. */
  AUTO_START_GDL90_ENABLED: envBool(false),
  AUTO_START_USB_ENABLED: envBool(false),
  AUTO_START_USB_DEVICE: z.string().max(255).default(''),
  AUTO_START_UDP_RETRANSMIT: envBool(false),
  AUTO_START_UDP_RETRANSMIT_IP: z.union([ipv4, z.literal('')]).default(''),
  AUTO_START_UDP_RETRANSMIT_PORT: envPort(12001),
  /** Not in the spec table: a sender or stand-alone auto-start needs a target and a position. */
  AUTO_START_TARGET_IP: z.union([ipv4, z.literal('')]).default(''),
  AUTO_START_TARGET_PORT: envPort(12000),
  AUTO_START_AIRPORT: z.string().max(8).default(''),
  /** An IP address or a host name (resolved on each ping); checked by parseSimulatorIp. */
  SIMULATOR_IP: z.string().max(253).default(''),
  SERIAL_BAUDRATE: z.coerce
    .number()
    .int()
    .refine((b) => [4800, 9600, 19200, 38400, 57600, 115200, 230400].includes(b), 'unsupported baud rate')
    .default(115200),
  EFB_SIM_NAME: z.string().max(32).default(''),
  /** Where "broadcast" EFB output goes; tests use a loopback broadcast address. */
  EFB_BROADCAST_ADDRESS: ipv4.default('255.255.255.255'),
  EFB_PORT: envPort(49002),
  GDL90_PORT: envPort(4000),
  /** Address the receiver binds to. */
  LISTEN_HOST: z.string().min(1).default('0.0.0.0'),
  /** A TCP receiver connection silent this long is closed; 0 keeps quiet connections. */
  RECEIVER_TCP_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(0).max(86_400).default(120),
  /** TCP receiver connections one client address may hold at once (the whole receiver takes 32). */
  RECEIVER_TCP_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).max(32).default(4),
  TZ: z.string().max(64).optional(),
  /** The heartbeat is a rebroadcaster's by the spec; true sends it in every mode (an idle one included). */
  HEARTBEAT_ALL_MODES: envBool(false),
  HA_DISCOVERY_ENABLED: envBool(true),
  HA_DISCOVERY_PREFIX: z
    .string()
    .regex(/^[^#+\s]+$/)
    .default('homeassistant'),
});

export type SimulatorEnv = z.infer<typeof simulatorEnvSchema>;

export interface SimulatorConfig extends SimulatorEnv {
  /** The HTTP port actually used: SIMULATOR_PORT, else PORT, else 8080. */
  httpPort: number;
  /** True when PASSWORD was not set (the password is the one kept under DATA_DIR). */
  passwordGenerated: boolean;
  password: string;
}

/** Parses the environment; throws ConfigError naming the first bad variable. */
export function parseSimulatorConfig(
  env: NodeJS.ProcessEnv,
  generatePassword: (parsed: SimulatorEnv) => string,
): SimulatorConfig {
  const parsed = parseConfig(simulatorEnvSchema, env);
  const password = parsed.PASSWORD ?? generatePassword(parsed);
  return {
    ...parsed,
    httpPort: parsed.SIMULATOR_PORT ?? parsed.PORT,
    password,
    passwordGenerated: parsed.PASSWORD === undefined,
  };
}
