// Polygon rings of a tile as MapLibre reads them. MapLibre does not know which ring of a feature is its
// exterior: it reads the winding. The first ring's winding marks an exterior, each later ring wound the
// same way starts a new polygon, and each ring wound the other way is a hole of the polygon before it.
// The tiler winds rings right in world coordinates, but rounding them to the tile's integer grid can turn
// a hole of a few units over: MapLibre then takes it for a new polygon, the holes after it (a whole
// continent) become its holes, and the sea's exterior is filled without them: land drawn as sea.

/** Twice a ring's signed area in tile units: positive for an exterior as vector tiles wind it (clockwise, y down). */
export function ringArea(ring) {
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++)
    s += ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
  return s;
}

/** Whether a ring runs round the whole tile (on or past every edge): clipped from a polygon larger than the tile. */
function coversTile(ring, extent) {
  return (
    ringArea(ring) >= 2 * extent * extent &&
    ring.every(([x, y]) => (x <= 0 || x >= extent) && (y <= 0 || y >= extent))
  );
}

/**
 * A tile's polygon features with each ring wound for its place: the first ring of a feature (the tiler
 * makes one feature of each polygon, exterior first) as an exterior, the others as holes. Rings that
 * rounded to no area go, and so does a feature whose exterior did. A feature whose exterior and one of
 * whose holes both run round the whole tile (a tile inside a continent, in the sea's polygon) covers
 * nothing and goes too. Returns a new tile; the tiler's own is left as it was.
 */
export function windForMapLibre(tile, extent) {
  const features = [];
  for (const feature of tile.features) {
    if (feature.type !== 3) {
      features.push(feature);
      continue;
    }
    const rings = [];
    for (const [k, ring] of feature.geometry.entries()) {
      const area = ringArea(ring);
      if (area === 0) {
        if (k === 0) break;
        continue;
      }
      const exterior = k === 0;
      rings.push(exterior === area > 0 ? ring : [...ring].reverse());
    }
    if (rings.length === 0) continue;
    if (coversTile(rings[0], extent) && rings.slice(1).some((r) => coversTile([...r].reverse(), extent)))
      continue;
    features.push({ ...feature, geometry: rings });
  }
  return { ...tile, features };
}
