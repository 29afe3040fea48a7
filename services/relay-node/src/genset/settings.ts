import type { genset } from '@outpost/contracts';
import { envPort, parseConfig } from '@outpost/runtime';
import { z } from 'zod';
import { loadRegisterMap } from './register-map.js';

/**
 * The genset reader's settings from the environment (GENSET_*). Without GENSET_TRANSPORT the reader
 * is off and the node behaves as before.
 */

export const GENSET_PARITIES = ['none', 'even', 'odd'] as const;

export const GensetEnv = z
  .object({
    /**
     * `tcp` (the module's Ethernet port or a gateway such as the DSE 855) or `rtu` (RS-485); unset: off.
     * `dev`: a built-in fake module that follows the relay, honoured with DEV_MODE and mock hardware only.
     */
    GENSET_TRANSPORT: z.enum(['tcp', 'rtu', 'dev']).optional(),
    GENSET_HOST: z.string().trim().min(1).max(253).optional(),
    GENSET_PORT: envPort(502).refine((p) => p > 0, 'expected a port from 1 to 65535'),
    /** The serial device of the USB RS-485 adapter; a /dev/serial/by-id/ path survives re-plugging. */
    GENSET_DEVICE: z
      .string()
      .trim()
      .startsWith('/', 'expected a device path such as /dev/ttyUSB0')
      .optional(),
    /** The module's Modbus slave id, as set in its communications configuration. */
    GENSET_UNIT_ID: z.coerce.number().int().min(1).max(247).default(1),
    /** RTU: the line settings the module is configured with (8 data bits). */
    GENSET_BAUD_RATE: z.coerce
      .number()
      .int()
      .refine((b) => [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200].includes(b), {
        message: 'expected one of 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200',
      })
      .default(19200),
    GENSET_PARITY: z.enum(GENSET_PARITIES).default('none'),
    GENSET_STOP_BITS: z.coerce.number().int().min(1).max(2).default(1),
    GENSET_POLL_SECONDS: z.coerce.number().min(0.2).max(3600).default(2),
    GENSET_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1000),
    /** No answer for this long: every value unknown and the `genset_unreachable` warning. */
    GENSET_STALE_SECONDS: z.coerce.number().min(1).max(86_400).default(10),
    /** A register map file (JSON) read instead of the DSE GenComm preset; unset: DSE. */
    GENSET_MAP: z.string().trim().min(1).optional(),
  })
  .superRefine((e, ctx) => {
    if (e.GENSET_TRANSPORT === 'tcp' && !e.GENSET_HOST) {
      ctx.addIssue({ code: 'custom', path: ['GENSET_HOST'], message: 'required with GENSET_TRANSPORT=tcp' });
    }
    if (e.GENSET_TRANSPORT === 'rtu' && !e.GENSET_DEVICE) {
      ctx.addIssue({
        code: 'custom',
        path: ['GENSET_DEVICE'],
        message: 'required with GENSET_TRANSPORT=rtu',
      });
    }
    if (
      e.GENSET_TRANSPORT &&
      e.GENSET_STALE_SECONDS * 1000 < e.GENSET_POLL_SECONDS * 1000 + e.GENSET_TIMEOUT_MS
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['GENSET_STALE_SECONDS'],
        message: 'must be longer than one poll (GENSET_POLL_SECONDS + GENSET_TIMEOUT_MS)',
      });
    }
  });

interface Common {
  /** GENSET_MAP, checked at start; absent: the DSE GenComm preset. */
  map?: genset.GensetRegisterMap;
  unitId: number;
  pollMs: number;
  timeoutMs: number;
  staleMs: number;
}
export type GensetSettings =
  | (Common & { transport: 'tcp'; host: string; port: number })
  | (Common & { transport: 'dev' })
  | (Common & {
      transport: 'rtu';
      device: string;
      baudRate: number;
      parity: (typeof GENSET_PARITIES)[number];
      stopBits: number;
    });

/** The reader's settings, or null when GENSET_TRANSPORT is unset. Throws ConfigError naming the variable. */
export function readGensetSettings(env: NodeJS.ProcessEnv = process.env): GensetSettings | null {
  const e = parseConfig(GensetEnv, env);
  if (!e.GENSET_TRANSPORT) return null;
  const common: Common = {
    unitId: e.GENSET_UNIT_ID,
    pollMs: Math.round(e.GENSET_POLL_SECONDS * 1000),
    timeoutMs: e.GENSET_TIMEOUT_MS,
    staleMs: Math.round(e.GENSET_STALE_SECONDS * 1000),
    ...(e.GENSET_MAP ? { map: loadRegisterMap(e.GENSET_MAP) } : {}),
  };
  if (e.GENSET_TRANSPORT === 'dev') return { ...common, transport: 'dev' };
  if (e.GENSET_TRANSPORT === 'tcp') {
    return { ...common, transport: 'tcp', host: e.GENSET_HOST as string, port: e.GENSET_PORT };
  }
  return {
    ...common,
    transport: 'rtu',
    device: e.GENSET_DEVICE as string,
    baudRate: e.GENSET_BAUD_RATE,
    parity: e.GENSET_PARITY,
    stopBits: e.GENSET_STOP_BITS,
  };
}
