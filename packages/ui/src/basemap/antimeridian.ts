import type { Basemap } from './index.js';

type Pt = [number, number];

/**
 * The land cut at the antimeridian, for a flat map. The source topology (world-atlas) keeps a
 * polygon whole across ±180° for spherical rendering: Wrangel Island, Eurasia at Chukotka, Fiji and
 * Antarctica step from +180° to -180° from one point to the next, and drawn flat that step is an edge
 * across the whole world (the straight lines the fleet map showed at about 70° N and 16° S). Each
 * such ring is made continuous in longitude, closed along the pole if it goes round one
 * (Antarctica), and drawn once on each side: its copies shifted by ±360° are clipped to
 * [-180°, 180°]. Every other polygon is kept as it is. Runs once, when the basemap loads.
 */
export function cutAtAntimeridian(map: Basemap): Basemap {
  const half = 180 * map.scale;
  const polys: Basemap['polys'] = [];
  for (const poly of map.polys) {
    const [box, encoded] = poly;
    // Only a polygon whose box spans more than half the world can hold a step across it.
    if (box[2] - box[0] <= half) {
      polys.push(poly);
      continue;
    }
    const rings = encoded.map(decode);
    if (!rings.some((r) => crosses(r, half))) {
      polys.push(poly);
      continue;
    }
    const flat = rings.map((r) => unwrap(r, map.scale));
    for (const shift of [-2 * half, 0, 2 * half]) {
      const copies: Pt[][] = [];
      for (const [i, ring] of flat.entries()) {
        const moved = ring.map(([x, y]): Pt => [x + shift, y]);
        const clipped = clip(clip(moved, -half, 1), half, -1);
        // No holes without their outer ring (the first): alone they would draw as land.
        // A copy left only on the clip line (a ring that just touches ±180°) is no area either.
        if (clipped.length < 3 || clipped.every((p) => p[0] === (clipped[0] as Pt)[0])) {
          if (i === 0) break;
          continue;
        }
        copies.push(clipped);
      }
      if (copies.length > 0) polys.push([boxOf(copies), copies.map(encode)]);
    }
  }
  return { scale: map.scale, polys };
}

function decode(ring: number[]): Pt[] {
  const pts: Pt[] = [];
  let x = 0;
  let y = 0;
  for (let i = 0; i < ring.length; i += 2) {
    x += ring[i] as number;
    y += ring[i + 1] as number;
    pts.push([x, y]);
  }
  return pts;
}

function encode(pts: Pt[]): number[] {
  const out: number[] = [];
  let px = 0;
  let py = 0;
  for (const [x, y] of pts) {
    out.push(x - px, y - py);
    px = x;
    py = y;
  }
  return out;
}

function crosses(ring: Pt[], half: number): boolean {
  return ring.some((a, i) => Math.abs(a[0] - (ring[(i + 1) % ring.length] as Pt)[0]) > half);
}

/** Longitudes made continuous; a ring that goes round a pole is closed along it. */
function unwrap(ring: Pt[], scale: number): Pt[] {
  const half = 180 * scale;
  const out: Pt[] = [[...(ring[0] as Pt)]];
  let offset = 0;
  for (let i = 1; i < ring.length; i++) {
    const [x, y] = ring[i] as Pt;
    const step = x - (ring[i - 1] as Pt)[0];
    if (step > half) offset -= 2 * half;
    else if (step < -half) offset += 2 * half;
    out.push([x + offset, y]);
  }
  const first = out[0] as Pt;
  const last = out[out.length - 1] as Pt;
  if (Math.abs(first[0] - last[0]) > half) {
    // Round a pole: down to it at the last longitude, along it, and up at the first.
    const meanLat = out.reduce((s, p) => s + p[1], 0) / out.length;
    const pole = (meanLat < 0 ? -90 : 90) * scale;
    // In steps of at most 90°: no edge, even the one along the pole, spans the map.
    const steps = Math.ceil(Math.abs(first[0] - last[0]) / (90 * scale));
    for (let k = 0; k <= steps; k++)
      out.push([Math.round(last[0] + ((first[0] - last[0]) * k) / steps), pole]);
  }
  return out;
}

/** Sutherland–Hodgman against one vertical line: keeps x >= at (side 1) or x <= at (side -1). */
function clip(ring: Pt[], at: number, side: 1 | -1): Pt[] {
  const inside = (p: Pt) => side * (p[0] - at) >= 0;
  const out: Pt[] = [];
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i] as Pt;
    const b = ring[(i + 1) % ring.length] as Pt;
    if (inside(a)) out.push(a);
    if (inside(a) !== inside(b)) {
      const t = (at - a[0]) / (b[0] - a[0]);
      out.push([at, Math.round(a[1] + t * (b[1] - a[1]))]);
    }
  }
  return out;
}

function boxOf(rings: Pt[][]): [number, number, number, number] {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const ring of rings)
    for (const [x, y] of ring) {
      minX = Math.min(minX, x);
      minY = Math.min(minY, y);
      maxX = Math.max(maxX, x);
      maxY = Math.max(maxY, y);
    }
  return [minX, minY, maxX, maxY];
}
