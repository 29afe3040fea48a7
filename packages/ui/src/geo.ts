/** Web Mercator in pixels of 256-px tiles at zoom `z`, the projection map tiles use. */
export function project(lat: number, lon: number, z: number): { x: number; y: number } {
  const size = 256 * 2 ** z;
  const clamped = Math.max(-85.0511, Math.min(85.0511, lat));
  const r = (clamped * Math.PI) / 180;
  return {
    x: ((lon + 180) / 360) * size,
    y: ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * size,
  };
}

export function unproject(x: number, y: number, z: number): { lat: number; lon: number } {
  const size = 256 * 2 ** z;
  const lon = (x / size) * 360 - 180;
  const n = Math.PI - (2 * Math.PI * y) / size;
  const lat = (180 / Math.PI) * Math.atan(Math.sinh(n));
  return { lat, lon };
}

const STEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45, 90];

/** A round grid spacing in degrees giving about `lines` lines across `spanDeg`. */
export function gridStep(spanDeg: number, lines = 5): number {
  const want = Math.abs(spanDeg) / lines;
  return STEPS.find((s) => s >= want) ?? 90;
}

/** Multiples of `step` within [from, to]. */
export function gridLines(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  const lo = Math.min(from, to);
  const hi = Math.max(from, to);
  for (let i = Math.ceil(lo / step); i * step <= hi + 1e-9 && out.length < 200; i++) {
    out.push(Number((i * step).toFixed(6)));
  }
  return out;
}

/** The largest zoom (up to `max`) at which every point fits in w×h pixels with a margin. */
export function fitZoom(
  points: ReadonlyArray<{ lat: number; lon: number }>,
  w: number,
  h: number,
  max: number,
): number {
  if (points.length < 2) return max;
  for (let z = max; z > 0; z--) {
    const ps = points.map((p) => project(p.lat, p.lon, z));
    const xs = ps.map((p) => p.x);
    const ys = ps.map((p) => p.y);
    if (Math.max(...xs) - Math.min(...xs) <= w * 0.8 && Math.max(...ys) - Math.min(...ys) <= h * 0.8)
      return z;
  }
  return 1;
}

/** 12.34567 → "12.3457° N"; the hemisphere letter reads better on a small screen than a sign. */
export function formatLat(lat: number, digits = 5): string {
  return `${Math.abs(lat).toFixed(digits)}° ${lat >= 0 ? 'N' : 'S'}`;
}

export function formatLon(lon: number, digits = 5): string {
  return `${Math.abs(lon).toFixed(digits)}° ${lon >= 0 ? 'E' : 'W'}`;
}
