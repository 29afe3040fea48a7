import { direct } from '../flight/geo.js';
import { MESSAGE_ID, type OwnshipFix, ownshipReport } from './messages.js';

/** At most this many simulated targets: enough to test a rig's traffic display, not to clutter it. */
export const MAX_TRAFFIC = 8;

const NM_PER_SECOND_AT_120_KT = 120 / 3600;

/**
 * Simulated traffic for rig testing: target k circles the ownship at 2 + k NM, 500 ft above or
 * below it by turns, at 120 kt, so it is always near and its bearing changes. A pure function of
 * the ownship and the time, so every tablet sees the same targets.
 */
export function trafficTargets(own: OwnshipFix, timeMs: number, count: number): OwnshipFix[] {
  const out: OwnshipFix[] = [];
  for (let k = 0; k < Math.min(count, MAX_TRAFFIC); k++) {
    const radiusNm = 2 + k;
    const degPerSecond = (NM_PER_SECOND_AT_120_KT / (2 * Math.PI * radiusNm)) * 360;
    const bearing = (k * 137 + (timeMs / 1000) * degPerSecond) % 360;
    const at = direct(own, bearing, radiusNm);
    out.push({
      lat: at.lat,
      lon: at.lon,
      altitude_ft: own.altitude_ft + (k % 2 === 0 ? 500 : -500),
      speed_kts: 120,
      // Circling clockwise: the track is the bearing from the centre plus 90°.
      track: (bearing + 90) % 360,
      vertical_fpm: 0,
    });
  }
  return out;
}

/** Traffic Report (ID 20) frames' bodies for the targets, with addresses and call signs of their own. */
export function trafficReports(targets: readonly OwnshipFix[]): Uint8Array[] {
  return targets.map((t, k) =>
    ownshipReport(
      t,
      { address: 0xf00000 + k + 1, callSign: `TFC${String(k + 1).padStart(2, '0')}`, emitterCategory: 1 },
      MESSAGE_ID.traffic,
    ),
  );
}
