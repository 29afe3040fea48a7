// Reading the fleet map's view from a browser test: where points are drawn, and whether a person sees them.
import type { Locator } from 'playwright-core';

// Runs in the page; typed structurally, as the tests are compiled without the DOM library.
type Rect = { left: number; top: number; right: number; bottom: number };
export type HostEl = {
  clientWidth: number;
  clientHeight: number;
  getBoundingClientRect(): Rect;
  querySelectorAll(selector: string): ArrayLike<{ getBoundingClientRect(): Rect }>;
  maplibre: {
    project(p: [number, number]): { x: number; y: number };
    getCenter(): { lng: number; lat: number };
    isMoving(): boolean;
  };
};
type Points = Record<string, { lat: number; lon: number }>;

/**
 * Where each point is drawn (pixels from the map's top left), the map's size and centre, and the boxes of
 * the controls over it (the zoom buttons, the attribution).
 */
export function drawn(map: Locator, points: Points) {
  return map.evaluate((el: object, pts: Points) => {
    const host = el as HostEl;
    const origin = host.getBoundingClientRect();
    const controls = Array.from(host.querySelectorAll('.maplibregl-ctrl'), (e) => {
      const r = e.getBoundingClientRect();
      return {
        left: r.left - origin.left,
        top: r.top - origin.top,
        right: r.right - origin.left,
        bottom: r.bottom - origin.top,
      };
    });
    const c = host.maplibre.getCenter();
    const at: Record<string, { x: number; y: number }> = {};
    for (const [id, p] of Object.entries(pts)) at[id] = host.maplibre.project([p.lon, p.lat]);
    return {
      width: host.clientWidth,
      height: host.clientHeight,
      center: [c.lng, c.lat] as [number, number],
      controls,
      points: at,
    };
  }, points);
}

/** Whether a point is seen: inside the map, at least `margin` pixels from every edge and 8 from every control. */
const inside = (p: { x: number; y: number }, w: number, h: number, margin: number, controls: Rect[]) =>
  p.x >= margin &&
  p.y >= margin &&
  p.x <= w - margin &&
  p.y <= h - margin &&
  !controls.some((c) => p.x > c.left - 8 && p.x < c.right + 8 && p.y > c.top - 8 && p.y < c.bottom + 8);

/** The named points not seen on the map: outside it, within 20 px of an edge, or under a control. */
export async function unseen(map: Locator, points: Points, names: string[]): Promise<string[]> {
  const v = await drawn(map, points);
  return names
    .filter((n) => !inside(v.points[n]!, v.width, v.height, 20, v.controls))
    .map(
      (n) => `${n} at ${v.points[n]!.x.toFixed(0)},${v.points[n]!.y.toFixed(0)} of ${v.width}x${v.height}`,
    );
}
