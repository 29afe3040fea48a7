/**
 * The offline basemap: Natural Earth 1:50m land, simplified and delta-encoded by
 * scripts/build-basemap.mjs. It is a separate chunk of the console's bundle, fetched from the
 * console's own origin the first time a map is drawn: no tile server, no CDN.
 */
export interface Basemap {
  scale: number;
  /** Per polygon: its bounding box in scaled degrees, then its rings as delta-encoded x,y pairs. */
  polys: Array<[[number, number, number, number], number[][]]>;
}

export interface View {
  west: number;
  south: number;
  east: number;
  north: number;
}

import { cutAtAntimeridian } from './antimeridian.js';

let loading: Promise<Basemap> | null = null;

export function loadBasemap(): Promise<Basemap> {
  loading ??= import('./land.gen.js').then((m) => cutAtAntimeridian(JSON.parse(m.default) as Basemap));
  return loading;
}

/**
 * An SVG path of the land in view: polygons whose box misses the view are skipped, the others are
 * drawn whole (the SVG clips them), projected by `toXY`.
 */
export function landPath(
  map: Basemap,
  view: View,
  toXY: (lat: number, lon: number) => [number, number],
): string {
  const s = map.scale;
  const [w, so, e, n] = [view.west * s, view.south * s, view.east * s, view.north * s];
  const parts: string[] = [];
  for (const [[minX, minY, maxX, maxY], rings] of map.polys) {
    if (maxX < w || minX > e || maxY < so || minY > n) continue;
    for (const ring of rings) {
      let x = 0;
      let y = 0;
      let d = '';
      for (let i = 0; i < ring.length; i += 2) {
        x += ring[i]!;
        y += ring[i + 1]!;
        const [px, py] = toXY(y / s, x / s);
        d += `${i === 0 ? 'M' : 'L'}${px.toFixed(1)} ${py.toFixed(1)}`;
      }
      parts.push(`${d}Z`);
    }
  }
  return parts.join('');
}
