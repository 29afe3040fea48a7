// Reading a console's MapLibre map from a browser test: what the renderer drew (its rendered features,
// by layer), where a coordinate lands on screen, and the colour a person sees there (from a screenshot).
import type { Locator } from 'playwright-core';

// Runs in the page; typed structurally, as this file is compiled without the DOM library.
type Feature = { properties: Record<string, unknown> };
type MapLike = {
  queryRenderedFeatures(opts: { layers: string[] }): Feature[];
  querySourceFeatures(source: string): Feature[];
  project(at: [number, number]): { x: number; y: number };
  getZoom(): number;
  loaded(): boolean;
  areTilesLoaded(): boolean;
  zoomTo(z: number, opts: { animate: boolean }): void;
  getStyle(): { layers: Array<{ id: string }> };
};
type Host = { maplibre?: MapLike };

/** Waits until the map in `host` (a GeoMap's or the fleet map's element) has drawn with every tile loaded. */
export async function mapIdle(host: Locator, timeout = 20_000): Promise<void> {
  await host.evaluate(
    (el: object, ms: number) =>
      new Promise<void>((resolve, reject) => {
        const end = Date.now() + ms;
        const tick = () => {
          const m = (el as Host).maplibre;
          if (m?.loaded() && m.areTilesLoaded()) resolve();
          else if (Date.now() > end) reject(new Error('map not idle in time'));
          else setTimeout(tick, 100);
        };
        tick();
      }),
    timeout,
  );
}

/** The `property` values of the features the renderer drew on `layer`, once each, sorted. */
export function renderedValues(host: Locator, layer: string, property = 'id'): Promise<string[]> {
  return host.evaluate(
    (el: object, [l, p]: [string, string]) => {
      const m = (el as Host).maplibre;
      if (!m?.getStyle().layers.some((x) => x.id === l)) return [];
      const values = m.queryRenderedFeatures({ layers: [l] }).map((f) => String(f.properties[p]));
      return [...new Set(values)].sort();
    },
    [layer, property] as [string, string],
  );
}

/** The `property` values of the features a GeoJSON source holds (drawn in view or not), once each, sorted. */
export function sourceValues(host: Locator, source: string, property = 'id'): Promise<string[]> {
  return host.evaluate(
    (el: object, [s, p]: [string, string]) => {
      const values = ((el as Host).maplibre?.querySourceFeatures(s) ?? []).map((f) =>
        String(f.properties[p]),
      );
      return [...new Set(values)].sort();
    },
    [source, property] as [string, string],
  );
}

/** Where [lon, lat] is on screen, in pixels from the host's top left. */
export function onScreen(host: Locator, lon: number, lat: number): Promise<{ x: number; y: number }> {
  return host.evaluate((el: object, at: [number, number]) => (el as Host).maplibre!.project(at), [
    lon,
    lat,
  ] as [number, number]);
}

export const mapZoom = (host: Locator): Promise<number> =>
  host.evaluate((el: object) => (el as Host).maplibre!.getZoom());

/** The colour a person sees at [lon, lat]: a screenshot of the host, read back at that point. */
export async function colourAt(host: Locator, lon: number, lat: number): Promise<[number, number, number]> {
  const at = await onScreen(host, lon, lat);
  const png = (await host.screenshot()).toString('base64');
  type Doc = {
    createElement(t: 'canvas'): {
      width: number;
      height: number;
      getContext(k: '2d'): {
        drawImage(i: unknown, x: number, y: number): void;
        getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
      };
    };
  };
  return host.evaluate(
    async (_el: unknown, [data, x, y]: [string, number, number]) => {
      const img = new (
        globalThis as unknown as {
          Image: new () => { src: string; decode(): Promise<void>; width: number; height: number };
        }
      ).Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const doc = (globalThis as unknown as { document: Doc }).document;
      const canvas = doc.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data;
      return [d[0]!, d[1]!, d[2]!] as [number, number, number];
    },
    [png, at.x, at.y] as [string, number, number],
  );
}

/** `#rrggbb` to its channels. */
export const rgb = (hex: string): [number, number, number] => [
  Number.parseInt(hex.slice(1, 3), 16),
  Number.parseInt(hex.slice(3, 5), 16),
  Number.parseInt(hex.slice(5, 7), 16),
];

/** Whether two colours are within `tolerance` on every channel (antialiasing, colour management). */
export const near = (a: readonly number[], b: readonly number[], tolerance = 12): boolean =>
  a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= tolerance);
