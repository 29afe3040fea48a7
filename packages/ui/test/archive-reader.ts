import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { PMTiles, type Source } from 'pmtiles';

/** An archive in memory through the PMTiles library's own reader, as the console's map reads it (by byte ranges). */
export function reader(buf: Buffer): PMTiles {
  const source: Source = {
    getKey: () => 'archive',
    getBytes: async (offset, length) => ({
      data: buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + length) as ArrayBuffer,
    }),
  };
  return new PMTiles(source);
}

/** A point's tile coordinates at zoom z, fractional: the tile is the integer part. */
export function tileXY(lat: number, lon: number, z: number): [number, number] {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return [((lon + 180) / 360) * n, ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n];
}

type Pt = { x: number; y: number };

function inRing(x: number, y: number, ring: Pt[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i]!;
    const b = ring[j]!;
    if (a.y > y !== b.y > y && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
  }
  return inside;
}

function signedArea(ring: Pt[]): number {
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++)
    s += (ring[i]!.x - ring[j]!.x) * (ring[j]!.y + ring[i]!.y);
  return s;
}

/** MapLibre fills at most this many rings of one polygon: the largest (its fill bucket's limit). */
const MAX_RINGS = 500;

/**
 * The polygons MapLibre fills from one feature's rings: it reads the winding, not the ring's place in the
 * feature. The first ring's winding marks an exterior; each ring wound the same starts a new polygon and each
 * ring wound the other way is a hole of the polygon before it; rings of no area are skipped.
 */
function polygonsOf(rings: Pt[][]): Pt[][][] {
  const polygons: Array<Array<{ ring: Pt[]; area: number }>> = [];
  let ccw: boolean | undefined;
  for (const ring of rings) {
    const area = signedArea(ring);
    if (area === 0) continue;
    ccw ??= area < 0;
    if (ccw === area < 0 || polygons.length === 0) polygons.push([{ ring, area: Math.abs(area) }]);
    else polygons.at(-1)!.push({ ring, area: Math.abs(area) });
  }
  return polygons.map((p) => {
    const [outer, ...holes] = p;
    holes.sort((a, b) => b.area - a.area);
    return [outer!, ...holes.slice(0, MAX_RINGS - 1)].map((r) => r.ring);
  });
}

/** How many polygons MapLibre fills from each feature of a tile's layer. */
export function polygonsPerFeature(data: ArrayBuffer, layer: string): number[] {
  const l = new VectorTile(new PbfReader(new Uint8Array(data))).layers[layer];
  return Array.from({ length: l?.length ?? 0 }, (_, i) => polygonsOf(l!.feature(i).loadGeometry()).length);
}

/**
 * Whether MapLibre draws water at a point of a vector tile (fx, fy in tile units of its zoom, as tileXY gives):
 * inside some polygon of the water layer and in none of its holes.
 */
export function waterInTile(data: ArrayBuffer, layer: string, fx: number, fy: number): boolean {
  const water = new VectorTile(new PbfReader(new Uint8Array(data))).layers[layer];
  if (!water) return false;
  const x = (fx - Math.floor(fx)) * water.extent;
  const y = (fy - Math.floor(fy)) * water.extent;
  for (let i = 0; i < water.length; i++)
    for (const [outer, ...holes] of polygonsOf(water.feature(i).loadGeometry()))
      if (inRing(x, y, outer!) && !holes.some((h) => inRing(x, y, h))) return true;
  return false;
}
