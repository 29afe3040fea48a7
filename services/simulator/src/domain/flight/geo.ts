import geodesic from 'geographiclib-geodesic';

const WGS84 = geodesic.Geodesic.WGS84;
export const METRES_PER_NM = 1852;

export interface LatLon {
  lat: number;
  lon: number;
}

/** Geodesic (great-circle on the ellipsoid) distance in NM and initial bearing in degrees true. */
export function inverse(a: LatLon, b: LatLon): { distanceNm: number; bearing: number } {
  const r = WGS84.Inverse(a.lat, a.lon, b.lat, b.lon);
  const azi = r.azi1 ?? 0;
  return { distanceNm: (r.s12 ?? 0) / METRES_PER_NM, bearing: ((azi % 360) + 360) % 360 };
}

/** The point `distanceNm` from `a` along the geodesic that starts on `bearing`. */
export function direct(a: LatLon, bearing: number, distanceNm: number): LatLon {
  const r = WGS84.Direct(a.lat, a.lon, bearing, distanceNm * METRES_PER_NM);
  const lat = r.lat2 ?? a.lat;
  let lon = r.lon2 ?? a.lon;
  if (lon > 180 || lon < -180) lon = ((((lon + 180) % 360) + 360) % 360) - 180;
  return { lat, lon };
}

/** Signed shortest turn from `from` to `to`, in (-180, 180]. */
export function turnBetween(from: number, to: number): number {
  const d = ((((to - from) % 360) + 540) % 360) - 180;
  return d === -180 ? 180 : d;
}
