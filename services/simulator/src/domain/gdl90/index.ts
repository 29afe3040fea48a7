import { frameGdl90 } from './framing.js';
import {
  addressFromName,
  callSign,
  foreFlightId,
  geometricAltitude,
  heartbeat,
  type OwnshipFix,
  ownshipReport,
} from './messages.js';
import { trafficReports, trafficTargets } from './traffic.js';

export { ESCAPE, FLAG, frameGdl90, gdl90Crc } from './framing.js';
export * from './messages.js';
export { MAX_TRAFFIC, trafficTargets } from './traffic.js';

/**
 * One second of the GDL 90 stream, as frames: Heartbeat, Ownship Report, Ownship Geometric
 * Altitude, the ForeFlight ID message and, when asked for, Traffic Reports of simulated targets.
 * Without a fix (a receiver whose feed went quiet) only the Heartbeat is sent, with GPS-valid
 * clear, so an EFB sees the device but no position.
 */
export function gdl90Epoch(name: string, fix: OwnshipFix | null, timeMs: number, traffic = 0): Uint8Array[] {
  const frames = [frameGdl90(heartbeat(fix !== null, timeMs))];
  if (fix === null) return frames;
  const identity = { address: addressFromName(name), callSign: callSign(name), emitterCategory: 1 };
  frames.push(
    frameGdl90(ownshipReport(fix, identity)),
    frameGdl90(geometricAltitude(fix.altitude_ft)),
    frameGdl90(foreFlightId(name.trim() || 'Outpost', name.trim() || 'Outpost simulator')),
    ...trafficReports(trafficTargets(fix, timeMs, traffic)).map(frameGdl90),
  );
  return frames;
}
