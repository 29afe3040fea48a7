import { validateStyleMin } from '@maplibre/maplibre-gl-style-spec';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseStyle, WATER_LAYERS } from '../src/map/style.js';

beforeAll(() => {
  // The style names the archive on the page's own origin.
  (globalThis as { location?: { origin: string } }).location = { origin: 'http://127.0.0.1:8080' };
});

describe('the console map style', () => {
  it('draws the built-in archive: world water, then the detail over it, on the land background, and nothing online', () => {
    const style = baseStyle({ archive: '/map/basemap.pmtiles', style: 'outpost', tiles_url: null });
    expect(validateStyleMin(style)).toEqual([]);
    expect(style.layers.map((l) => l.id)).toEqual(['land', 'water-world', 'cover-detail', 'water-detail']);
    expect(JSON.stringify(style.sources)).toContain(
      'pmtiles://http://127.0.0.1:8080/map/basemap.pmtiles/{z}/{x}/{y}',
    );
    expect(JSON.stringify(style)).not.toMatch(/https:/);
  });

  it('draws a Protomaps extract with its own layers, water among them', () => {
    const style = baseStyle({ archive: '/map/basemap.pmtiles', style: 'protomaps', tiles_url: null });
    expect(validateStyleMin(style)).toEqual([]);
    const ids = style.layers.map((l) => l.id);
    expect(ids).toEqual(expect.arrayContaining(['pm-earth', 'pm-water', 'pm-roads', 'pm-buildings']));
    expect(ids.some((id) => (WATER_LAYERS as readonly string[]).includes(id))).toBe(true);
    expect(style.sources.protomaps).toEqual(
      expect.objectContaining({ type: 'vector', url: 'pmtiles://http://127.0.0.1:8080/map/basemap.pmtiles' }),
    );
  });

  it('puts MAP_TILES_URL raster tiles over the vector basemap (it shows where one is missing) only when set', () => {
    const url = 'https://tiles.example.org/{z}/{x}/{y}.png';
    const style = baseStyle({ archive: '/map/basemap.pmtiles', style: 'outpost', tiles_url: url });
    expect(validateStyleMin(style)).toEqual([]);
    expect(style.sources.online).toEqual(expect.objectContaining({ type: 'raster', tiles: [url] }));
    expect(style.layers.map((l) => l.id).at(-1)).toBe('online-tiles');
  });
});
