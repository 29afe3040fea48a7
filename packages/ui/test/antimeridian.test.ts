import { describe, expect, it } from 'vitest';
import { type Basemap, landPath, loadBasemap } from '../src/basemap/index.js';
import { project } from '../src/geo.js';

/** Every ring of the basemap as [lon, lat] points. */
function rings(map: Basemap): [number, number][][] {
  const out: [number, number][][] = [];
  for (const [, rs] of map.polys)
    for (const r of rs) {
      const pts: [number, number][] = [];
      let x = 0;
      let y = 0;
      for (let i = 0; i < r.length; i += 2) {
        x += r[i] as number;
        y += r[i + 1] as number;
        pts.push([x / map.scale, y / map.scale]);
      }
      out.push(pts);
    }
  return out;
}

/** Even-odd count over every ring: land at this point? */
function isLand(map: Basemap, lat: number, lon: number): boolean {
  let inside = false;
  for (const ring of rings(map))
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i] as [number, number];
      const [xj, yj] = ring[j] as [number, number];
      if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
    }
  return inside;
}

// The fleet map showed straight lines across the world at about 70° N and 16° S (and Antarctica's
// edge): rings that cross the antimeridian (Wrangel Island, Eurasia at Chukotka, Fiji, Antarctica)
// joined their points at +180° and -180° with an edge across the whole map.
describe('basemap at the antimeridian', () => {
  it('no edge of the land crosses the map from one side to the other', async () => {
    const map = await loadBasemap();
    const wide = rings(map).flatMap((ring) =>
      ring
        .map((a, i) => [a, ring[(i + 1) % ring.length] as [number, number]] as const)
        .filter(([a, b]) => Math.abs(a[0] - b[0]) > 180)
        .map(([a, b]) => `${a} -> ${b}`),
    );
    expect(wide).toEqual([]);
  });

  it('the drawn world map has no segment wider than half the world', async () => {
    const map = await loadBasemap();
    const zoom = 1;
    const d = landPath(map, { west: -180, south: -85, east: 180, north: 85 }, (lat, lon) => {
      const p = project(lat, lon, zoom);
      return [p.x, p.y];
    });
    let longest = 0;
    for (const sub of d.split('M').filter(Boolean)) {
      const pts = sub
        .replace('Z', '')
        .split('L')
        .map((p) => p.trim().split(' ').map(Number) as [number, number]);
      for (let i = 0; i < pts.length; i++) {
        const a = pts[i] as [number, number];
        const b = pts[(i + 1) % pts.length] as [number, number];
        longest = Math.max(longest, Math.abs(a[0] - b[0]));
      }
    }
    // 512 px is the whole world at zoom 1; the widest honest edge is far under half of it.
    expect(longest).toBeLessThan(256);
  });

  it('the land on both sides of the antimeridian and around the South Pole stays land', async () => {
    const map = await loadBasemap();
    expect(isLand(map, 67, -175)).toBe(true); // Chukotka, east of 180°
    expect(isLand(map, 67, 170)).toBe(true); // Chukotka, west of 180°
    expect(isLand(map, 60, 100)).toBe(true); // Siberia
    expect(isLand(map, 71.2, -179.5)).toBe(true); // Wrangel Island
    expect(isLand(map, 71.2, 179.5)).toBe(true);
    expect(isLand(map, -88, 0)).toBe(true); // Antarctica to the pole
    expect(isLand(map, -88, 179)).toBe(true);
    expect(isLand(map, -88, -179)).toBe(true);
    expect(isLand(map, 0, -150)).toBe(false); // the Pacific
    expect(isLand(map, 75, 0)).toBe(false); // the Greenland Sea
    expect(isLand(map, -60, 0)).toBe(false); // the Southern Ocean
  });
});
