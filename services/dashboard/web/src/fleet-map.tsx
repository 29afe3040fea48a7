import {
  formatLat,
  formatLon,
  type GeoJSONSource,
  type MapLibreMap,
  type Marker,
  maplibregl,
  SIMULATOR_STATUS_MEANING,
  type Tone,
  toneOf,
  useMapLibre,
} from '@outpost/ui';
import { useEffect, useRef } from 'preact/hooks';
import type { FleetSimulator, FleetSite } from './types.js';

/** Names are drawn only when there are few enough to read. */
const MAX_LABELS = 40;

type Located = FleetSimulator & { lat: number; lon: number };
type LocatedSite = FleetSite & { lat: number; lon: number };

/** A site needs a look when its controller is gone, its EPO is pressed or it raises a health alarm. */
const siteTrouble = (s: FleetSite) =>
  !s.controller_online || s.physical_safety_engaged === true || s.health_alarm !== undefined;

/** The colour variable of each tone (packages/ui status.ts), with a fallback for a page without it. */
const TONE_COLOUR: Record<Tone, [string, string]> = {
  neutral: ['--muted', '#5f6670'],
  good: ['--good', '#1a7f37'],
  warn: ['--warn', '#b26a00'],
  bad: ['--bad', '#c62828'],
};

/** A simulator's dot takes the tone of its Status word, as its row does. */
const simTone = (p: FleetSimulator): Tone =>
  toneOf(SIMULATOR_STATUS_MEANING[p.status] ?? (p.online ? 'online' : 'offline'));

/** A site's square: red for a fault, green running, neutral idle. */
const siteTone = (s: FleetSite): Tone => (siteTrouble(s) ? 'bad' : s.running ? 'good' : 'neutral');

function cssVar(el: Element, name: string, fallback: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || fallback;
}

const collection = (points: readonly Located[]) => ({
  type: 'FeatureCollection' as const,
  features: points.map((p) => ({
    type: 'Feature' as const,
    properties: { id: p.id, tone: simTone(p) },
    geometry: { type: 'Point' as const, coordinates: [p.lon, p.lat] },
  })),
});

/** The simulators as one GeoJSON source under one circle layer, coloured by tone: 5,000 dots in one draw. */
function addFleetLayers(map: MapLibreMap, el: Element): void {
  const colour = (t: Tone) => cssVar(el, ...TONE_COLOUR[t]);
  // No buffer or clustering: dots only, each tile holds just its own.
  map.addSource('fleet', { type: 'geojson', data: collection([]), buffer: 0, maxzoom: 12 });
  map.addLayer({
    id: 'fleet-sims',
    type: 'circle',
    source: 'fleet',
    paint: {
      'circle-radius': 4,
      'circle-color': [
        'match',
        ['get', 'tone'],
        'good',
        colour('good'),
        'warn',
        colour('warn'),
        'bad',
        colour('bad'),
        colour('neutral'),
      ],
    },
  });
}

/** DOM markers for the sites (squares, on top) and, when few, the simulators' names. */
function syncMarkers(
  map: MapLibreMap,
  kept: Map<string, Marker>,
  want: Array<{ key: string; at: [number, number]; text: string; className: string; colour?: string }>,
): void {
  const keys = new Set(want.map((w) => w.key));
  for (const [key, m] of kept)
    if (!keys.has(key)) {
      m.remove();
      kept.delete(key);
    }
  for (const w of want) {
    let m = kept.get(w.key);
    if (!m) {
      const el = document.createElement('div');
      el.innerHTML = '<div><span class="geo-dot"></span><span class="geo-text"></span></div>';
      m = new maplibregl.Marker({ element: el, anchor: 'center' }).setLngLat(w.at).addTo(map);
      kept.set(w.key, m);
    }
    const inner = m.getElement().firstChild as HTMLElement;
    inner.className = w.className;
    (inner.firstChild as HTMLElement).style.background = w.colour ?? '';
    (inner.lastChild as HTMLElement).textContent = w.text;
    m.setLngLat(w.at);
  }
}

/** Pixels kept clear round the points, beyond the map's controls. */
const MARGIN = 30;

/**
 * Room the fit leaves at each edge: the margin plus the corner controls over the map there (the zoom buttons
 * top right, the attribution bottom right), so no dot is drawn under them; at most a third of the map each.
 */
function fitPadding(map: MapLibreMap) {
  const box = map.getContainer();
  const size = (corner: string, side: 'offsetWidth' | 'offsetHeight') =>
    (box.querySelector(`.maplibregl-ctrl-${corner}`) as HTMLElement | null)?.[side] ?? 0;
  const w = box.clientWidth / 3;
  const h = box.clientHeight / 3;
  return {
    top: Math.min(h, MARGIN),
    bottom: Math.min(
      h,
      MARGIN + Math.max(size('bottom-right', 'offsetHeight'), size('bottom-left', 'offsetHeight')),
    ),
    left: Math.min(w, MARGIN),
    right: Math.min(w, MARGIN + size('top-right', 'offsetWidth')),
  };
}

/** Fits the view to the points (at most zoom 11, a city), clear of the map's controls. */
function fit(map: MapLibreMap, all: ReadonlyArray<{ lat: number; lon: number }>): void {
  if (all.length === 0) return;
  const b = new maplibregl.LngLatBounds();
  for (const p of all) b.extend([p.lon, p.lat]);
  map.fitBounds(b, { padding: fitPadding(map), maxZoom: 11, animate: false });
}

/**
 * Every located simulator on a MapLibre map over the offline basemap (coloured as their Status word) and every
 * located generator site as a square. The simulators are one GeoJSON source drawn by one circle layer, so
 * thousands of them redraw each second in one WebGL draw.
 */
export function FleetMap({ sims, sites }: { sims: readonly FleetSimulator[]; sites: readonly FleetSite[] }) {
  const { ref, map } = useMapLibre({ center: [0, 20], zoom: 1 });
  const markers = useRef(new Map<string, Marker>());
  const fitted = useRef('');
  const shown = useRef('');
  // Until the user pans or zooms, the view follows the fleet: it fits every simulator and site as they
  // arrive, and again when the map's box changes size (the page's layout settling). After, it is theirs.
  const userMoved = useRef(false);
  const points = useRef<ReadonlyArray<{ lat: number; lon: number }>>([]);
  const located = sims.filter((s): s is Located => s.lat !== null && s.lon !== null);
  const locatedSites = sites.filter((s): s is LocatedSite => s.lat !== undefined && s.lon !== undefined);

  useEffect(() => {
    if (!map || !ref.current) return;
    addFleetLayers(map, ref.current);
    const host = ref.current;
    const world = () => {
      if (map.isSourceLoaded('world')) host.dataset.land = 'yes';
    };
    map.on('sourcedata', world);
    map.on('idle', world);
    // The basemap may have loaded before this effect ran, and then no sourcedata event comes again.
    world();
    // Only a user's drag, wheel, pinch or zoom button carries the DOM event that caused it.
    const moved = (e: { originalEvent?: unknown }) => {
      if (e.originalEvent) userMoved.current = true;
    };
    const resized = () => {
      if (!userMoved.current) fit(map, points.current);
    };
    map.on('movestart', moved);
    map.on('resize', resized);
    // The attribution fills in once the basemap's source has loaded, often after the first fit: the
    // fit's room for the corner controls is measured again when they change size.
    const controls = new ResizeObserver(resized);
    for (const corner of host.querySelectorAll(
      '.maplibregl-ctrl-top-right, .maplibregl-ctrl-bottom-right, .maplibregl-ctrl-bottom-left',
    ))
      controls.observe(corner);
    return () => {
      controls.disconnect();
      map.off('sourcedata', world);
      map.off('idle', world);
      map.off('movestart', moved);
      map.off('resize', resized);
    };
  }, [map]);

  useEffect(() => {
    const host = ref.current;
    if (!map || !host || !map.getSource('fleet')) return;
    // New positions or colours go to the source (tiled in MapLibre's worker, off this thread); the same
    // fleet again is not sent, so a quiet fleet costs nothing but the redraw.
    const signature = located.map((p) => `${p.id},${p.lat},${p.lon},${simTone(p)}`).join(';');
    if (signature !== shown.current) {
      shown.current = signature;
      const sent = performance.now();
      (map.getSource('fleet') as GeoJSONSource).setData(collection(located));
      const loaded = (e: { sourceId?: string; isSourceLoaded?: boolean }) => {
        if (e.sourceId !== 'fleet' || !e.isSourceLoaded) return;
        map.off('sourcedata', loaded);
        map.once('render', () => {
          // Read by the browser test: from new data to the picture that shows it.
          host.dataset.updateMs = (performance.now() - sent).toFixed(1);
        });
      };
      map.on('sourcedata', loaded);
    }
    // A frame: one redraw of the whole map, basemap and every dot, as each fleet_state asks for (timed as
    // the draw itself, synchronous, like a canvas's; the WebGL work it queues runs after it).
    const started = performance.now();
    map.redraw();
    host.dataset.frameMs = (performance.now() - started).toFixed(1);
    host.dataset.points = String(located.length);
    host.dataset.sites = locatedSites.map((s) => `${s.id}:${siteTrouble(s) ? 'alert' : 'ok'}`).join(' ');
    syncMarkers(map, markers.current, [
      ...locatedSites.map((s) => ({
        key: `site-${s.id}`,
        at: [s.lon, s.lat] as [number, number],
        text: s.id,
        className: 'geo-site',
        colour: cssVar(host, ...TONE_COLOUR[siteTone(s)]),
      })),
      ...(located.length <= MAX_LABELS
        ? located.map((p) => ({
            key: `sim-${p.id}`,
            at: [p.lon, p.lat] as [number, number],
            text: p.id,
            className: 'geo-name',
          }))
        : []),
    ]);
    const all = [...located, ...locatedSites];
    points.current = all;
    // What is shown changed (a simulator or site located or gone), not merely moved: fit, unless the user
    // has taken the view.
    const key = `${all.length}`;
    if (key !== fitted.current) {
      fitted.current = key;
      if (!userMoved.current) fit(map, all);
    }
  });

  return (
    <figure class="geo-map" aria-label="Simulator and generator site positions">
      {/* Named by the figure: a role of img here would hide the map's own buttons from assistive technology. */}
      <div ref={ref} class="geo-canvas fleet-canvas" data-testid="fleet-map" />
      <figcaption class="geo-caption">
        {located.length === 1
          ? `${formatLat(located[0]!.lat)}  ${formatLon(located[0]!.lon)}`
          : located.length === 0
            ? 'No position'
            : `${located.length} positions`}
        {locatedSites.length > 0
          ? ` · ${locatedSites.length} generator site${locatedSites.length === 1 ? '' : 's'}`
          : ''}
      </figcaption>
    </figure>
  );
}
