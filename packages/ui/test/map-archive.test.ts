import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { type PMTiles, zxyToTileId } from 'pmtiles';
import { describe, expect, it } from 'vitest';
import { tileId, writeArchive } from '../scripts/pmtiles-writer.mjs';
import layout from '../src/map/layout.json';
import { reader, tileXY, waterInTile } from './archive-reader.ts';

const ARCHIVE = new URL('../map/basemap.pmtiles', import.meta.url);

/**
 * What the map draws at a point at zoom 12: the detail tile (overzoomed) where the archive has one, else the
 * world's last zoom (overzoomed); water where MapLibre fills the water layer's polygons.
 */
async function drawnAt(p: PMTiles, lat: number, lon: number): Promise<{ water: boolean; from: string }> {
  for (const z of [layout.detail_zoom, layout.world_maxzoom]) {
    const [fx, fy] = tileXY(lat, lon, z);
    const tile = await p.getZxy(z, Math.floor(fx), Math.floor(fy));
    if (!tile) continue;
    return { water: waterInTile(tile.data, layout.water_layer, fx, fy), from: `z${z}` };
  }
  return { water: false, from: 'none' };
}

describe('the built-in basemap', () => {
  const buf = readFileSync(ARCHIVE);

  it('is a PMTiles v3 archive of gzipped vector tiles, zooms 0 to the detail zoom, small enough for a Pi bundle', async () => {
    const h = await reader(buf).getHeader();
    expect(h.specVersion).toBe(3);
    expect([h.minZoom, h.maxZoom]).toEqual([0, layout.detail_zoom]);
    expect(h.tileType).toBe(1);
    expect(h.clustered).toBe(true);
    expect(buf.length).toBeLessThan(6_000_000);
    const meta = (await reader(buf).getMetadata()) as { attribution: string };
    expect(meta.attribution).toContain('OpenStreetMap');
  });

  it('draws San Francisco Bay, the Solent and Sydney Harbour as water at airport zoom, and the land around them as land', async () => {
    const p = reader(buf);
    const places = {
      'San Francisco Bay off SFO': [37.6105, -122.343, true],
      'San Francisco Bay, mid-bay': [37.7, -122.3, true],
      'SFO terminals': [37.6164, -122.3865, false],
      'the Solent off Cowes': [50.79, -1.29, true],
      'the Isle of Wight': [50.68, -1.3, false],
      'Sydney Harbour by Fort Denison': [-33.8555, 151.232, true],
      'Sydney Harbour off Bradleys Head': [-33.852, 151.24, true],
      'Sydney, Surry Hills': [-33.886, 151.211, false],
    } as const;
    const seen: Record<string, boolean> = {};
    const want: Record<string, boolean> = {};
    for (const [name, [lat, lon, water]] of Object.entries(places)) {
      seen[name] = (await drawnAt(p, lat, lon)).water;
      want[name] = water;
    }
    expect(seen).toEqual(want);
    // San Francisco Bay and Sydney Harbour come from the 100 m detail, not the 1 km world.
    expect((await drawnAt(p, 37.6105, -122.343)).from).toBe(`z${layout.detail_zoom}`);
    expect((await drawnAt(p, -33.8555, 151.232)).from).toBe(`z${layout.detail_zoom}`);
  });
});

describe('the PMTiles writer', () => {
  it('numbers tiles along the Hilbert curve as the format does', () => {
    for (const [z, x, y] of [
      [0, 0, 0],
      [1, 1, 0],
      [3, 2, 5],
      [10, 163, 396],
      [12, 4095, 0],
    ] as const)
      expect(tileId(z, x, y)).toBe(zxyToTileId(z, x, y));
  });

  it('writes an archive the PMTiles reader reads back tile for tile, repeats stored once', async () => {
    const a = gzipSync(Buffer.from('tile a'));
    const b = gzipSync(Buffer.from('tile b'));
    const tiles = [
      { z: 0, x: 0, y: 0, data: a },
      { z: 1, x: 0, y: 0, data: b },
      { z: 1, x: 0, y: 1, data: b },
      { z: 1, x: 1, y: 1, data: b },
      { z: 2, x: 3, y: 3, data: a },
    ];
    const archive = writeArchive({
      tiles,
      metadata: { name: 't' },
      bounds: [-180, -85, 180, 85],
      center: [0, 0, 0],
    });
    const p = reader(archive);
    const h = await p.getHeader();
    expect([h.numAddressedTiles, h.numTileContents]).toEqual([5, 2]);
    for (const t of tiles) {
      const got = await p.getZxy(t.z, t.x, t.y);
      expect(Buffer.from(got!.data)).toEqual(Buffer.from(t.data === a ? 'tile a' : 'tile b'));
    }
    expect(await p.getZxy(1, 1, 0)).toBeUndefined();
    expect(await p.getMetadata()).toEqual({ name: 't' });
  });
});
