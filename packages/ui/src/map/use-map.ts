import type { Map as MapLibreMap } from 'maplibre-gl';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type MapConfig, mapSetup, maplibregl } from './setup.js';
import { baseStyle } from './style.js';

/** An element a map was made in; the browser tests read the map through it (project, queryRenderedFeatures). */
export type MapHost = HTMLDivElement & { maplibre?: MapLibreMap };

/**
 * A MapLibre map in the returned ref's element, on the basemap the gateway serves, with zoom buttons and
 * the data's attribution. `map` is null until its style is parsed; `config` says whether online tiles are on.
 */
export function useMapLibre(initial: { center: [number, number]; zoom: number }) {
  const ref = useRef<MapHost>(null);
  const [map, setMap] = useState<MapLibreMap | null>(null);
  const [config, setConfig] = useState<MapConfig | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let made: MapLibreMap | null = null;
    mapSetup()
      .then((cfg) => {
        if (!live || !ref.current) return;
        setConfig(cfg);
        const m = new maplibregl.Map({
          container: ref.current,
          style: baseStyle(cfg),
          center: initial.center,
          zoom: initial.zoom,
          // North up, always: headings and runway names read as on a chart.
          dragRotate: false,
          pitchWithRotate: false,
          touchPitch: false,
          attributionControl: { compact: true },
        });
        made = m;
        m.touchZoomRotate.disableRotation();
        m.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
        ref.current.maplibre = m;
        // Ready for its own sources and layers once the style is parsed: not after the basemap's first
        // tiles ('load'), which a busy page may take seconds to draw.
        m.once('style.load', () => live && setMap(m));
      })
      .catch((err: unknown) => live && setFailed(err instanceof Error ? err.message : String(err)));
    return () => {
      live = false;
      made?.remove();
    };
    // The map is made once; later views are set through it.
  }, []);
  return { ref, map, config, failed };
}
