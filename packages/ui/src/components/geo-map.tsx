import type { FeatureCollection } from 'geojson';
import type { GeoJSONSource, Map as MapLibreMap, Marker } from 'maplibre-gl';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatLat, formatLon } from '../geo.js';
import { useOnline } from '../hooks.js';
import { maplibregl } from '../map/setup.js';
import { useMapLibre } from '../map/use-map.js';

export interface MapPoint {
  id: string;
  lat: number;
  lon: number;
  label?: string;
  /** false draws the marker in the "bad" colour. */
  ok?: boolean;
}

/** A polyline: a planned route (dashed), the track flown, or a runway (a wide bar between its thresholds). */
export interface MapLine {
  id: string;
  kind: 'route' | 'track' | 'runway';
  points: ReadonlyArray<{ lat: number; lon: number }>;
  /** Drawn only when the view is at least this zoom (runways are specks and clutter further out). */
  minZoom?: number;
  /** Labels at the first and the last point (a runway's end identifiers). */
  ends?: readonly [string, string];
}

export interface GeoMapProps {
  points: readonly MapPoint[];
  lines?: readonly MapLine[];
  /** Background places (airports near the view): small, unlabelled beyond their name, not fitted. */
  places?: readonly MapPoint[];
  /** Zoom for a single point (MapLibre's: 512-pixel tiles). */
  zoom?: number;
  label?: string;
}

/** The line layers, bottom to top; their ids are what the browser tests ask the renderer for. */
const LINE_PAINT = {
  runway: {
    'line-color': '#2b2f36',
    'line-width': ['interpolate', ['exponential', 2], ['zoom'], 9, 2, 14, 14],
    'line-opacity': 0.8,
  },
  route: { 'line-color': '#1f6feb', 'line-width': 2.5, 'line-dasharray': [3, 2], 'line-opacity': 0.85 },
  track: { 'line-color': '#c62828', 'line-width': 2.5, 'line-opacity': 0.8 },
} as const;

const lineFeatures = (lines: readonly MapLine[]): FeatureCollection => ({
  type: 'FeatureCollection',
  features: lines
    .filter((l) => l.points.length > 1)
    .map((l) => ({
      type: 'Feature' as const,
      properties: { id: l.id, kind: l.kind },
      geometry: { type: 'LineString' as const, coordinates: l.points.map((p) => [p.lon, p.lat]) },
    })),
});

/** A point a little beyond a line's end, along the line: where its end name goes, clear of the bar. */
function beyond(a: { lat: number; lon: number }, b: { lat: number; lon: number }): [number, number] {
  const k = Math.cos((b.lat * Math.PI) / 180);
  const dx = (b.lon - a.lon) * k;
  const dy = b.lat - a.lat;
  const len = Math.hypot(dx, dy) || 1;
  // About 120 m on.
  const step = 0.0011;
  return [b.lon + ((dx / len) * step) / k, b.lat + (dy / len) * step];
}

interface Label {
  key: string;
  at: [number, number];
  text: string;
  className: string;
  /** Shown from this zoom on. */
  minZoom: number;
}

function labelsOf(
  points: readonly MapPoint[],
  lines: readonly MapLine[],
  places: readonly MapPoint[],
): Label[] {
  const out: Label[] = [];
  for (const l of lines) {
    if (!l.ends || l.points.length < 2) continue;
    const first = l.points[0]!;
    const last = l.points[l.points.length - 1]!;
    const min = l.minZoom ?? 0;
    out.push({
      key: `${l.id}:a`,
      at: beyond(last, first),
      text: l.ends[0],
      className: 'geo-line-end',
      minZoom: min,
    });
    out.push({
      key: `${l.id}:b`,
      at: beyond(first, last),
      text: l.ends[1],
      className: 'geo-line-end',
      minZoom: min,
    });
  }
  for (const p of places)
    out.push({
      key: `place-${p.id}`,
      at: [p.lon, p.lat],
      text: p.label ?? '',
      className: 'geo-place',
      minZoom: 0,
    });
  for (const p of points)
    out.push({
      key: `pt-${p.id}`,
      at: [p.lon, p.lat],
      text: p.label ?? '',
      className: p.ok === false ? 'geo-marker bad' : 'geo-marker',
      minZoom: 0,
    });
  return out;
}

/** Keeps one DOM marker per label (a dot and its text): few, and they need no font files. */
function syncLabels(map: MapLibreMap, kept: Map<string, Marker>, labels: Label[]): void {
  const want = new Set(labels.map((l) => l.key));
  for (const [key, m] of kept) {
    if (!want.has(key)) {
      m.remove();
      kept.delete(key);
    }
  }
  const zoom = map.getZoom();
  for (const l of labels) {
    let m = kept.get(l.key);
    if (!m) {
      // MapLibre keeps its own classes on the marker's element: the label is a child of it.
      const el = document.createElement('div');
      el.innerHTML = '<div><span class="geo-dot"></span><span class="geo-text"></span></div>';
      m = new maplibregl.Marker({ element: el, anchor: 'center' }).setLngLat(l.at).addTo(map);
      kept.set(l.key, m);
    }
    const el = m.getElement().firstChild as HTMLElement;
    el.className = l.className;
    el.dataset.minZoom = String(l.minZoom);
    el.hidden = zoom < l.minZoom;
    (el.lastChild as HTMLElement).textContent = l.text;
    m.setLngLat(l.at);
  }
}

/** The view for the points: one point at `zoom`, several fitted with a margin (never closer than zoom 11). */
function fitView(map: MapLibreMap, points: readonly MapPoint[], zoom: number): void {
  if (points.length === 0) return;
  if (points.length === 1) {
    map.jumpTo({ center: [points[0]!.lon, points[0]!.lat], zoom });
    return;
  }
  const b = new maplibregl.LngLatBounds();
  for (const p of points) b.extend([p.lon, p.lat]);
  map.fitBounds(b, { padding: 40, maxZoom: Math.min(zoom, 11), animate: false });
}

/**
 * Positions on a MapLibre map over the offline vector basemap the console's own service serves (water and
 * land; a regional extract's streets when one is configured), with nearby places, lines (route, track,
 * runways) and markers. Online raster tiles cover the basemap only when the service sets MAP_TILES_URL.
 */
export function GeoMap({ points, lines = [], places = [], zoom = 10, label = 'Map' }: GeoMapProps) {
  const online = useOnline();
  const first = points[points.length - 1];
  const { ref, map, config, failed } = useMapLibre({
    center: first ? [first.lon, first.lat] : [0, 20],
    zoom: first ? zoom : 1,
  });
  const labels = useRef(new Map<string, Marker>());
  const viewKey = useRef('');
  const [, redraw] = useState(0);

  useEffect(() => {
    if (!map) return;
    map.addSource('lines', { type: 'geojson', data: lineFeatures([]) });
    for (const kind of ['runway', 'route', 'track'] as const)
      map.addLayer({
        id: `map-${kind}`,
        type: 'line',
        source: 'lines',
        filter: ['==', ['get', 'kind'], kind],
        layout: { 'line-cap': kind === 'runway' ? 'butt' : 'round', 'line-join': 'round' },
        paint: LINE_PAINT[kind] as never,
      });
    const onZoom = () => {
      const z = map.getZoom();
      for (const m of labels.current.values()) {
        const el = m.getElement().firstChild as HTMLElement;
        el.hidden = z < Number(el.dataset.minZoom ?? 0);
      }
    };
    map.on('zoom', onZoom);
    map.on('idle', () => {
      if (ref.current) ref.current.dataset.zoom = map.getZoom().toFixed(2);
    });
    redraw((n) => n + 1);
    return () => map.off('zoom', onZoom);
  }, [map]);

  useEffect(() => {
    if (!map?.getSource('lines')) return;
    (map.getSource('lines') as GeoJSONSource).setData(lineFeatures(lines));
    // Runways are specks further out: from their minZoom on (the lowest any of them asks).
    const runways = lines.filter((l) => l.kind === 'runway');
    if (runways.length > 0)
      map.setLayerZoomRange('map-runway', Math.min(...runways.map((l) => l.minZoom ?? 0)), 24);
    syncLabels(map, labels.current, labelsOf(points, lines, places));
    // Refit when the set of things to show changes (a new plan, the zoom asked for), else follow the one point.
    const key = `${points.length}|${zoom}|${points
      .slice(0, -1)
      .map((p) => `${p.lat.toFixed(3)},${p.lon.toFixed(3)}`)
      .join(';')}`;
    if (key !== viewKey.current) {
      viewKey.current = key;
      fitView(map, points, zoom);
    } else if (points.length === 1) {
      map.setCenter([points[0]!.lon, points[0]!.lat]);
    }
  });

  return (
    <figure class="geo-map" aria-label={label}>
      {/* Named by the figure: a role of img here would hide the map's own buttons from assistive technology. */}
      <div ref={ref} class="geo-canvas" data-testid="geo-map" />
      <figcaption class="geo-caption">
        {points.length === 1
          ? `${formatLat(points[0]!.lat)}  ${formatLon(points[0]!.lon)}`
          : points.length === 0
            ? 'No position'
            : `${points.length} positions`}
        {config?.tiles_url && !online ? ' · offline: built-in map only' : ''}
        {failed ? ` · map unavailable: ${failed}` : ''}
      </figcaption>
    </figure>
  );
}
