import { scfKeyWords, scfSupported } from './decode.js';
import { telemetryStopIgnored } from './models.js';
import { IDENT_BLOCK, SCF_FLAGS_BLOCK, SCF_KEY_REGISTER, SCF_TELEMETRY_STOP } from './registers.js';
import type { RegisterIo } from './transport.js';

export interface TelemetryStopResult {
  /** The key and its complement went to 4104–4105. */
  written: boolean;
  /** Not written: the module does not list "cancel telemetry start" among its control functions. */
  reason?: 'not_supported';
  /** Written, but this model is known to ignore it (the DSE 4520 MkII). */
  ignoredByModel?: boolean;
}

/**
 * GenComm's "cancel telemetry start in auto mode" (system control function 33, key 35733): a second
 * stop path beside the relay, never a start. Written only where the module flags the function in
 * registers 4096–4103, as the key and 65535 − key in one function 16 write to 4104–4105.
 */
export async function writeTelemetryStop(io: RegisterIo): Promise<TelemetryStopResult> {
  const flags = await io.readHolding(SCF_FLAGS_BLOCK.start, SCF_FLAGS_BLOCK.count);
  if (!scfSupported(flags, SCF_TELEMETRY_STOP)) return { written: false, reason: 'not_supported' };
  await io.writeHolding(SCF_KEY_REGISTER, scfKeyWords(SCF_TELEMETRY_STOP));
  const [manufacturer, model] = await io.readHolding(IDENT_BLOCK.start, 2);
  return {
    written: true,
    ...(manufacturer !== undefined && model !== undefined && telemetryStopIgnored(manufacturer, model)
      ? { ignoredByModel: true }
      : {}),
  };
}
