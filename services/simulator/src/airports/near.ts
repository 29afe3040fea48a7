import type { Airport } from './index.js';

const NM_PER_DEGREE = 60;

/**
 * The airports within `radiusNm` of a point, nearest first, at most `limit`. Distances are
 * equirectangular: at the few dozen miles a map shows, the error is far below a marker's size.
 */
export function near(
  all: readonly Airport[],
  lat: number,
  lon: number,
  radiusNm: number,
  limit: number,
): Airport[] {
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const maxDeg = radiusNm / NM_PER_DEGREE;
  const found: Array<{ a: Airport; d: number }> = [];
  for (const a of all) {
    const dLat = a.lat - lat;
    if (Math.abs(dLat) > maxDeg) continue;
    let dLon = Math.abs(a.lon - lon);
    if (dLon > 180) dLon = 360 - dLon;
    const d = Math.hypot(dLat, dLon * cosLat) * NM_PER_DEGREE;
    if (d <= radiusNm) found.push({ a, d });
  }
  found.sort((x, y) => x.d - y.d);
  return found.slice(0, limit).map((f) => f.a);
}
