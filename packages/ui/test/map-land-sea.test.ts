import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import layout from '../src/map/layout.json';
import { polygonsPerFeature, reader, tileXY, waterInTile } from './archive-reader.ts';

const ARCHIVE = new URL('../map/basemap.pmtiles', import.meta.url);

/** Inland on every continent: far from any coast and any lake the map draws. Latitude, longitude. */
const LAND: Record<string, [number, number]> = {
  'Nevada, Tonopah': [38.3, -116.9],
  'California, San Joaquin Valley': [36.3, -119.6],
  Kansas: [38.5, -98.5],
  'Texas, Edwards Plateau': [31, -100],
  Saskatchewan: [51, -107],
  'Alaska, interior': [65, -155],
  'Mexico, Zacatecas': [23.5, -102.5],
  'Greenland ice sheet': [72, -40],
  'Denver airport': [39.85, -104.7],
  'Las Vegas airport': [36.08, -115.15],
  'Brazil, Mato Grosso': [-13, -55],
  'Brazil, Goiás': [-15.5, -49],
  'Argentina, the Pampas': [-35, -63],
  'Bolivia, Chaco': [-20, -62],
  'Sahara, Algeria': [25, 5],
  'Sahara, Libya': [25, 20],
  'Congo basin': [-2, 23],
  Botswana: [-22, 24],
  'Ethiopian highlands': [9, 39],
  'Germany, Thuringia': [51, 11],
  Poland: [52, 19],
  'France, Massif Central': [45.5, 3],
  'Madrid airport': [40.5, -3.6],
  'Moscow region': [55.5, 40],
  'Siberia, Evenkia': [62, 100],
  Yakutia: [65, 125],
  'Kazakh steppe': [48, 68],
  Mongolia: [46, 103],
  'China, Gansu': [36, 104],
  'China, Sichuan basin': [30.5, 105],
  'Beijing airport': [40.08, 116.6],
  'India, Madhya Pradesh': [23, 78],
  'Delhi airport': [28.56, 77.1],
  'Iran, Dasht-e Kavir': [34, 54],
  'Saudi Arabia, Najd': [24, 45],
  'Australia, Tanami': [-20, 130],
  'Australia, Alice Springs': [-23.8, 133.9],
  'Australia, Nullarbor': [-30.5, 128],
};

/** Open sea on every ocean. */
const SEA: Record<string, [number, number]> = {
  'mid-Pacific, equator': [0, -150],
  'North Pacific': [40, -150],
  'South Pacific': [-30, -120],
  'Pacific off California': [36, -126],
  'North Atlantic': [45, -35],
  'mid-Atlantic': [10, -30],
  'South Atlantic': [-25, -15],
  'Indian Ocean': [-20, 80],
  'Southern Ocean': [-55, 60],
  'Tasman Sea': [-40, 160],
  'Arctic, Fram Strait': [80, 0],
  'Gulf of Mexico': [25, -90],
  'Mediterranean, Ionian Sea': [35, 18],
  Caribbean: [15, -75],
};

describe('the built-in basemap, land and sea at every zoom', () => {
  const p = reader(readFileSync(ARCHIVE));

  /** Whether the map draws water at a point at zoom z, as MapLibre fills the tiles it draws there. */
  async function waterAt(lat: number, lon: number, z: number): Promise<{ water: boolean; tile: string }> {
    // At the detail zoom the detail tile, where the archive has one, covers the world's tile beneath.
    const zooms = z >= layout.detail_zoom ? [layout.detail_zoom, layout.world_maxzoom] : [z];
    for (const tz of zooms) {
      const [fx, fy] = tileXY(lat, lon, tz);
      const tile = `${tz}/${Math.floor(fx)}/${Math.floor(fy)}`;
      const found = await p.getZxy(tz, Math.floor(fx), Math.floor(fy));
      if (found) return { water: waterInTile(found.data, layout.water_layer, fx, fy), tile };
      if (tz <= layout.world_maxzoom) return { water: false, tile: `${tile} (none)` };
    }
    return { water: false, tile: 'none' };
  }

  const zooms = [...Array.from({ length: layout.world_maxzoom + 1 }, (_, z) => z), layout.detail_zoom];

  async function wrong(places: Record<string, [number, number]>, water: boolean): Promise<string[]> {
    const out: string[] = [];
    for (const [name, [lat, lon]] of Object.entries(places))
      for (const z of zooms) {
        const seen = await waterAt(lat, lon, z);
        if (seen.water !== water)
          out.push(
            `${name} (${lat}, ${lon}) at zoom ${z}: ${seen.water ? 'water' : 'land'} from tile ${seen.tile}`,
          );
      }
    return out;
  }

  it('draws land inland on every continent at every zoom of the world and at the detail zoom', async () => {
    expect(await wrong(LAND, false)).toEqual([]);
  });

  it('draws water on the open sea of every ocean at every zoom', async () => {
    expect(await wrong(SEA, true)).toEqual([]);
  });

  it('holds no water feature that MapLibre reads as more than one polygon in the world tiles to zoom 5', async () => {
    // The tiler makes a feature of each polygon; a ring wound the wrong way splits it in MapLibre's eyes and
    // hands the holes after it (continents) to the wrong exterior.
    const split: string[] = [];
    for (let z = 0; z <= 5; z++)
      for (let x = 0; x < 2 ** z; x++)
        for (let y = 0; y < 2 ** z; y++) {
          const tile = await p.getZxy(z, x, y);
          if (!tile) continue;
          polygonsPerFeature(tile.data, layout.water_layer).forEach((n, i) => {
            if (n > 1) split.push(`tile ${z}/${x}/${y} feature ${i}: ${n} polygons`);
          });
        }
    expect(split).toEqual([]);
  });
});
