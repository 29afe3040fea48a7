// Builds the consoles' offline basemap, map/basemap.pmtiles: water polygons as vector tiles in
// a PMTiles v3 archive. The data are OpenStreetMap-derived seas and oceans (ODbL) as packaged on the
// npm registry by geo-maps; they are not a dependency of the build. To regenerate, in a scratch
// directory run
//   npm install --no-save @geo-maps/earth-seas-1km@0.6.0 @geo-maps/earth-seas-100m@0.6.0 \
//     @geo-maps/earth-lakes-10m@0.6.0
// then `node packages/ui/scripts/build-map-archive.mjs <that directory>/node_modules`.
//
// Two tile sets share the archive (src/map/layout.json):
// - the world, zooms 0 to world_maxzoom, from the 1 km seas and the lakes of at least world_lake_km2:
//   coastlines right to about a pixel there;
// - detail, at detail_zoom only, from the 100 m seas and the 10 m lakes and inland water (OpenStreetMap's
//   natural=water: Sydney Harbour is one, the seas stop at its heads), on the tiles around every airport with a runway
//   of at least detail_runway_ft whose tile has a coastline in it: at airport zoom a bay, a firth or a
//   harbour reads as water. Each detail tile starts with a `cover` square, so the coarse world under it
//   does not show through where the 100 m data says land.
// Tiles that are all sea or all land repeat one content and are stored once.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { GeoJSONVT } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import { writeArchive } from './pmtiles-writer.mjs';
import { windForMapLibre } from './tile-rings.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const layout = JSON.parse(readFileSync(join(here, '../src/map/layout.json'), 'utf8'));
const OUT = join(here, '../map/basemap.pmtiles');
const RUNWAYS = join(here, '../../../services/simulator/src/airports/runways-data.ts');
/** Tiles on each side of an airport's own detail tile that are built too (about 40 km at 45°). */
const AROUND = 1;

const modules = process.argv[2];
if (!modules) throw new Error('usage: build-map-archive.mjs <node_modules with the @geo-maps packages>');
const require = createRequire(join(modules, 'x.js'));
/** A package's polygons as features for the tiler (each package is one GeometryCollection of MultiPolygons). */
const polygons = (name) =>
  require(`@geo-maps/${name}/map.geo.json`).geometries.flatMap((g) =>
    (g.type === 'Polygon' ? [g.coordinates] : g.coordinates).map((coordinates) => ({
      type: 'Feature',
      properties: {},
      geometry: { type: 'Polygon', coordinates },
    })),
  );
const collection = (features) => ({ type: 'FeatureCollection', features });

/** A polygon's outer ring area in km² (equirectangular, at its own latitude: enough to sort lakes by size). */
function areaKm2(feature) {
  const ring = feature.geometry.coordinates[0];
  let a = 0;
  let lat = 0;
  for (let i = 0; i < ring.length - 1; i++) {
    a += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1];
    lat += ring[i][1];
  }
  const k = Math.cos(((lat / Math.max(1, ring.length - 1)) * Math.PI) / 180);
  return Math.abs(a / 2) * 111.32 * 111.32 * k;
}

const lakes = polygons('earth-lakes-10m');

const EXTENT = 4096;
const encode = (layers) =>
  gzipSync(Buffer.from(fromGeojsonVt(layers, { version: 2, extent: EXTENT })), { level: 9 });

/** The longest runway per airport, from the simulator's runway table (OurAirports, public domain). */
function longRunwayAirports(minFt) {
  const text = readFileSync(RUNWAYS, 'utf8');
  const airports = new Map();
  for (const line of text.split('\n')) {
    const f = line.replace(/^.*`/, '').split('|');
    if (f.length < 14 || !/^[A-Z0-9]{4}$/.test(f[0])) continue;
    const length = Number(f[1]);
    if (!(length >= minFt)) continue;
    airports.set(f[0], { lat: Number(f[5]), lon: Number(f[6]) });
  }
  return [...airports.values()];
}

function tileOf(lat, lon, z) {
  const n = 2 ** z;
  const r = (Math.max(-85, Math.min(85, lat)) * Math.PI) / 180;
  const x = Math.floor(((lon + 180) / 360) * n);
  const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
  return { x: Math.min(n - 1, Math.max(0, x)), y: Math.min(n - 1, Math.max(0, y)) };
}

/** Whether a tile is one piece of water filling its square (geojson-vt clips to the square plus its buffer). */
function allWater(tile) {
  if (tile.features.length !== 1) return false;
  const rings = tile.features[0].geometry;
  if (rings.length !== 1) return false;
  return rings[0].every(([x, y]) => (x <= 0 || x >= EXTENT) && (y <= 0 || y >= EXTENT));
}

const started = Date.now();
const tiles = [];
let worldTiles = 0;
{
  const bigLakes = lakes.filter((f) => areaKm2(f) >= layout.world_lake_km2);
  const world = new GeoJSONVT(collection([...polygons('earth-seas-1km'), ...bigLakes]), {
    maxZoom: layout.world_maxzoom,
    indexMaxZoom: layout.world_maxzoom,
    extent: EXTENT,
    buffer: 64,
    tolerance: 8,
  });
  for (let z = 0; z <= layout.world_maxzoom; z++) {
    const n = 2 ** z;
    for (let x = 0; x < n; x++)
      for (let y = 0; y < n; y++) {
        const raw = world.getTile(z, x, y);
        const tile = raw && windForMapLibre(raw, EXTENT);
        // No tile where there is no water: the map draws its background, land.
        if (!tile || tile.features.length === 0) continue;
        tiles.push({ z, x, y, data: encode({ [layout.water_layer]: tile }) });
        worldTiles += 1;
      }
  }
}

let detailTiles = 0;
{
  const z = layout.detail_zoom;
  const wanted = new Map();
  for (const a of longRunwayAirports(layout.detail_runway_ft)) {
    const t = tileOf(a.lat, a.lon, z);
    for (let dx = -AROUND; dx <= AROUND; dx++)
      for (let dy = -AROUND; dy <= AROUND; dy++) {
        const x = (t.x + dx + 2 ** z) % 2 ** z;
        const y = t.y + dy;
        if (y >= 0 && y < 2 ** z) wanted.set(`${x}/${y}`, { x, y });
      }
  }
  const smallest = lakes.filter((f) => areaKm2(f) >= layout.detail_lake_km2);
  const detail = new GeoJSONVT(collection([...polygons('earth-seas-100m'), ...smallest]), {
    maxZoom: z,
    indexMaxZoom: 5,
    extent: EXTENT,
    buffer: 64,
    tolerance: 10,
  });
  const square = [
    [
      [-64, -64],
      [EXTENT + 64, -64],
      [EXTENT + 64, EXTENT + 64],
      [-64, EXTENT + 64],
      [-64, -64],
    ],
  ];
  const cover = { features: [{ type: 3, geometry: square, tags: {} }] };
  for (const { x, y } of wanted.values()) {
    const raw = detail.getTile(z, x, y);
    const tile = raw && windForMapLibre(raw, EXTENT);
    // No coastline or lake at all, or all sea: the world tile under it says the same, so the detail would pay
    // nothing. A tile the 100 m seas make all land is kept (its cover hides the coarse world's coast).
    if (!raw || raw.features.length === 0 || allWater(tile)) continue;
    tiles.push({ z, x, y, data: encode({ [layout.cover_layer]: cover, [layout.water_layer]: tile }) });
    detailTiles += 1;
  }
}

const archive = writeArchive({
  tiles,
  metadata: {
    name: 'Outpost offline basemap',
    description: `Seas, oceans and lakes: world to z${layout.world_maxzoom} (1 km), coastal detail at z${layout.detail_zoom} (100 m) around airports`,
    attribution: layout.attribution,
    type: 'baselayer',
    version: '1',
    vector_layers: [
      { id: layout.water_layer, fields: {}, minzoom: 0, maxzoom: layout.detail_zoom },
      { id: layout.cover_layer, fields: {}, minzoom: layout.detail_zoom, maxzoom: layout.detail_zoom },
    ],
  },
  bounds: [-180, -85.0511, 180, 85.0511],
  center: [0, 20, 1],
});
writeFileSync(OUT, archive);
console.log(
  `${OUT}: ${statSync(OUT).size} bytes, ${worldTiles} world tiles (z0-${layout.world_maxzoom}), ` +
    `${detailTiles} detail tiles (z${layout.detail_zoom}) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
