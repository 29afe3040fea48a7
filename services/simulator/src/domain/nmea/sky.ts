/**
 * A deterministic GPS sky: a 24-satellite Walker-like constellation (6 planes, 55° inclination,
 * half-sidereal-day orbits) seen from the fix position. Elevations and azimuths therefore drift
 * slowly and realistically with time and place, and the same (time, place) always gives the same sky.
 */

export interface SkySatellite {
  prn: number;
  elevation: number; // whole degrees, 0..90
  azimuth: number; // whole degrees, 0..359
  snr: number; // dB-Hz, 0..99
}

export interface Sky {
  inView: SkySatellite[]; // elevation >= 5°, highest first, at most 16 (4 GSV sentences)
  used: SkySatellite[]; // the fix's satellites: elevation >= 10°, at most 12, at least 4
  hdop: number;
  vdop: number;
  pdop: number;
}

const ORBIT_S = 43082; // half a sidereal day
const EARTH_ROT_RAD_S = 7.2921159e-5;
const R_EARTH_KM = 6371;
const R_ORBIT_KM = 26560;
const INCLINATION = (55 * Math.PI) / 180;
// PRNs assigned per slot; a fixed, realistic-looking mix of the 1..32 range.
const PRNS = [2, 5, 7, 9, 12, 13, 15, 17, 19, 20, 21, 24, 25, 26, 27, 29, 30, 31, 1, 3, 6, 10, 14, 22];

const RAD = Math.PI / 180;

function satEcef(slot: number, tSec: number): [number, number, number] {
  const plane = Math.floor(slot / 4);
  const k = slot % 4;
  const raan = plane * 60 * RAD;
  const u = (k * 90 + plane * 15) * RAD + (2 * Math.PI * tSec) / ORBIT_S;
  // Orbit-plane position rotated by inclination then RAAN, then into the rotating Earth frame.
  const xo = Math.cos(u);
  const yo = Math.sin(u) * Math.cos(INCLINATION);
  const zo = Math.sin(u) * Math.sin(INCLINATION);
  const theta = raan - EARTH_ROT_RAD_S * tSec;
  const x = xo * Math.cos(theta) - yo * Math.sin(theta);
  const y = xo * Math.sin(theta) + yo * Math.cos(theta);
  return [x * R_ORBIT_KM, y * R_ORBIT_KM, zo * R_ORBIT_KM];
}

/** Small deterministic wobble so SNR is not a pure function of elevation. */
function wobble(prn: number, tSec: number): number {
  return Math.round(2 * Math.sin(tSec / 37 + prn * 1.7) + 1.5 * Math.sin(tSec / 11 + prn));
}

export function computeSky(lat: number, lon: number, timeMs: number): Sky {
  const tSec = (Number.isFinite(timeMs) ? timeMs : 0) / 1000;
  const la = (Number.isFinite(lat) ? Math.max(-90, Math.min(90, lat)) : 0) * RAD;
  const lo = (Number.isFinite(lon) ? lon : 0) * RAD;
  const sLa = Math.sin(la);
  const cLa = Math.cos(la);
  const sLo = Math.sin(lo);
  const cLo = Math.cos(lo);
  const ox = R_EARTH_KM * cLa * cLo;
  const oy = R_EARTH_KM * cLa * sLo;
  const oz = R_EARTH_KM * sLa;

  const all: SkySatellite[] = [];
  for (let slot = 0; slot < PRNS.length; slot++) {
    const [sx, sy, sz] = satEcef(slot, tSec);
    const dx = sx - ox;
    const dy = sy - oy;
    const dz = sz - oz;
    // East-north-up components of the line of sight.
    const e = -sLo * dx + cLo * dy;
    const n = -sLa * cLo * dx - sLa * sLo * dy + cLa * dz;
    const u = cLa * cLo * dx + cLa * sLo * dy + sLa * dz;
    const el = Math.atan2(u, Math.hypot(e, n)) / RAD;
    if (el < 5) continue;
    const prn = PRNS[slot]!;
    let az = Math.round(Math.atan2(e, n) / RAD);
    az = ((az % 360) + 360) % 360;
    const snr = Math.max(20, Math.min(50, Math.round(30 + el / 4) + wobble(prn, tSec)));
    all.push({ prn, elevation: Math.min(90, Math.round(el)), azimuth: az, snr });
  }
  all.sort((a, b) => b.elevation - a.elevation || a.prn - b.prn);
  const inView = all.slice(0, 16);
  let used = inView.filter((s) => s.elevation >= 10).slice(0, 12);
  if (used.length < 4) used = inView.slice(0, Math.min(4, inView.length));
  // DOP shrinks as more well-spread satellites join the solution; kept in a plausible open-sky band.
  const n = Math.max(used.length, 1);
  const hdop = Math.round((0.6 + 4 / n) * 10) / 10;
  const vdop = Math.round((0.9 + 6 / n) * 10) / 10;
  const pdop = Math.round(Math.hypot(hdop, vdop) * 10) / 10;
  return { inView, used, hdop, vdop, pdop };
}
