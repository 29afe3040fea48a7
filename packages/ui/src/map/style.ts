import type { LayerSpecification, SourceSpecification, StyleSpecification } from 'maplibre-gl';
import layout from './layout.json';
import type { MapConfig } from './setup.js';

/** One palette for every console map: land pale, water blue, so a bay reads as water at a glance. */
export const MAP_COLOURS = {
  land: '#eef0e6',
  water: '#a9cbe3',
  coast: '#7fa7c4',
  park: '#d7e8c7',
  road: '#ffffff',
  roadCasing: '#c9c4b8',
  building: '#dcd6cc',
} as const;

/** The layer ids that draw water, whichever archive is in use (the browser tests ask for these). */
export const WATER_LAYERS = ['water-world', 'water-detail', 'pm-water'] as const;

function outpostLayers(url: string): {
  sources: Record<string, SourceSpecification>;
  layers: LayerSpecification[];
} {
  const tiles = [`${url}/{z}/{x}/{y}`];
  const attribution = layout.attribution;
  return {
    sources: {
      // The same archive twice: the coarse world overzoomed past its last zoom, and the coastal detail
      // at its one zoom, drawn over the world where the archive has it.
      world: { type: 'vector', tiles, minzoom: 0, maxzoom: layout.world_maxzoom, attribution },
      detail: { type: 'vector', tiles, minzoom: layout.detail_zoom, maxzoom: layout.detail_zoom },
    },
    layers: [
      {
        id: 'water-world',
        type: 'fill',
        source: 'world',
        'source-layer': layout.water_layer,
        paint: { 'fill-color': MAP_COLOURS.water, 'fill-outline-color': MAP_COLOURS.coast },
      },
      {
        id: 'cover-detail',
        type: 'fill',
        source: 'detail',
        minzoom: layout.detail_zoom,
        'source-layer': layout.cover_layer,
        paint: { 'fill-color': MAP_COLOURS.land },
      },
      {
        id: 'water-detail',
        type: 'fill',
        source: 'detail',
        minzoom: layout.detail_zoom,
        'source-layer': layout.water_layer,
        paint: { 'fill-color': MAP_COLOURS.water, 'fill-outline-color': MAP_COLOURS.coast },
      },
    ],
  };
}

/** The Protomaps basemap layers a regional extract carries (earth, water, landuse, roads, buildings). */
function protomapsLayers(url: string): {
  sources: Record<string, SourceSpecification>;
  layers: LayerSpecification[];
} {
  const fill = (id: string, layer: string, color: string, filter?: unknown): LayerSpecification =>
    ({
      id,
      type: 'fill',
      source: 'protomaps',
      'source-layer': layer,
      paint: { 'fill-color': color },
      ...(filter ? { filter } : {}),
    }) as LayerSpecification;
  const road = (id: string, color: string, width: number, minzoom: number): LayerSpecification => ({
    id,
    type: 'line',
    source: 'protomaps',
    'source-layer': 'roads',
    minzoom,
    layout: { 'line-cap': 'round', 'line-join': 'round' },
    paint: {
      'line-color': color,
      'line-width': ['interpolate', ['exponential', 1.6], ['zoom'], 8, width / 4, 16, width * 4],
    },
  });
  return {
    sources: { protomaps: { type: 'vector', url: `pmtiles://${url}`, attribution: layout.attribution } },
    layers: [
      fill('pm-earth', 'earth', MAP_COLOURS.land),
      fill('pm-park', 'landuse', MAP_COLOURS.park, [
        'in',
        ['get', 'kind'],
        ['literal', ['park', 'wood', 'forest', 'nature_reserve', 'grass', 'meadow']],
      ]),
      fill('pm-water', 'water', MAP_COLOURS.water),
      road('pm-roads-casing', MAP_COLOURS.roadCasing, 1.6, 9),
      road('pm-roads', MAP_COLOURS.road, 1.1, 9),
      fill('pm-buildings', 'buildings', MAP_COLOURS.building),
    ],
  };
}

/** The style of a console map: basemap (built-in or MAP_PMTILES), online tiles over it only if configured. */
export function baseStyle(config: MapConfig): StyleSpecification {
  const url = `pmtiles://${location.origin}${config.archive}`;
  const base =
    config.style === 'protomaps' ? protomapsLayers(url.slice('pmtiles://'.length)) : outpostLayers(url);
  const sources: Record<string, SourceSpecification> = { ...base.sources };
  const layers: LayerSpecification[] = [
    { id: 'land', type: 'background', paint: { 'background-color': MAP_COLOURS.land } },
  ];
  layers.push(...base.layers);
  // Online tiles carry their own cartography: over the basemap, which still shows wherever a tile is
  // missing (offline above all); the map's own lines and markers go over both.
  if (config.tiles_url) {
    sources.online = { type: 'raster', tiles: [config.tiles_url], tileSize: 256, maxzoom: 19 };
    layers.push({ id: 'online-tiles', type: 'raster', source: 'online' });
  }
  return { version: 8, sources, layers };
}
