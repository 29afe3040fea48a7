/// <reference path="./url-import.d.ts" />
import * as maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
// The worker is a file of the console's own build: same origin, no blob: URL, nothing the CSP must widen.
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import { Protocol } from 'pmtiles';

/** What the gateway says about the map (GET /map/config.json, packages/runtime map-archive.ts). */
export interface MapConfig {
  /** The basemap archive's path on this origin. */
  archive: string;
  /** `outpost`: the built-in archive's layers; `protomaps`: a Protomaps basemap extract (MAP_PMTILES). */
  style: 'outpost' | 'protomaps';
  /** MAP_TILES_URL: online raster tiles over the basemap, or null (the default: nothing online is asked). */
  tiles_url: string | null;
}

let ready: Promise<MapConfig> | null = null;

/** Registers the pmtiles:// protocol and the worker once, and reads the map's configuration. */
export function mapSetup(): Promise<MapConfig> {
  ready ??= (async () => {
    maplibregl.setWorkerUrl(workerUrl);
    maplibregl.addProtocol('pmtiles', new Protocol().tile);
    const res = await fetch('/map/config.json', { credentials: 'same-origin' });
    if (!res.ok) throw new Error(`map configuration: HTTP ${res.status}`);
    return (await res.json()) as MapConfig;
  })();
  ready.catch(() => {
    ready = null;
  });
  return ready;
}

export { maplibregl };
