import { useEffect, useState } from 'preact/hooks';
import { type Basemap, landPath, loadBasemap } from '../basemap/index.js';
import { useOnline } from '../hooks.js';
import { fitZoom, formatLat, formatLon, gridLines, gridStep, project, unproject } from '../geo.js';

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
  /** `{z}/{x}/{y}` template of a tile server; tiles are drawn only when set and the browser is online. */
  tileUrl?: string | null;
  /** Zoom for a single point. */
  zoom?: number;
  label?: string;
}

const W = 480;
const H = 300;

/** The basemap once loaded (null until then, or if it could not load: the grid still works). */
function useBasemap(): Basemap | null {
  const [map, setMap] = useState<Basemap | null>(null);
  useEffect(() => {
    let live = true;
    loadBasemap()
      .then((m) => live && setMap(m))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, []);
  return map;
}

/**
 * Positions on a Web Mercator view over the offline land basemap, with a degree grid and coordinates
 * (all of it works with no network); map tiles underneath only when a tile server is configured and
 * the browser is online.
 */
export function GeoMap({ points, lines = [], places = [], tileUrl, zoom = 11, label = 'Map' }: GeoMapProps) {
  const online = useOnline();
  const basemap = useBasemap();
  const z = fitZoom(points, W, H, points.length > 1 ? Math.min(zoom, 12) : zoom);
  const center =
    points.length === 0 ? { lat: 0, lon: 0 } : points.length === 1 ? points[0]! : midpoint(points, z);
  const zz = points.length === 0 ? 1 : z;
  const c = project(center.lat, center.lon, zz);
  const x0 = c.x - W / 2;
  const y0 = c.y - H / 2;
  const topLeft = unproject(x0, y0, zz);
  const bottomRight = unproject(x0 + W, y0 + H, zz);
  const lonStep = gridStep(bottomRight.lon - topLeft.lon);
  const latStep = gridStep(topLeft.lat - bottomRight.lat, 3);
  const digits = Math.max(0, Math.min(4, Math.ceil(-Math.log10(Math.min(lonStep, latStep)))));
  const tiles = tileUrl && online ? tileImages(tileUrl, zz, x0, y0) : [];
  const xy = (lat: number, lon: number): [number, number] => {
    const q = project(lat, lon, zz);
    return [q.x - x0, q.y - y0];
  };
  const view = { west: topLeft.lon, south: bottomRight.lat, east: bottomRight.lon, north: topLeft.lat };
  const land = basemap ? landPath(basemap, view, xy) : '';

  return (
    <figure class="geo-map" aria-label={label}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} preserveAspectRatio="xMidYMid slice">
        <rect class="geo-bg" x="0" y="0" width={W} height={H} />
        {land ? <path class="geo-land" d={land} data-testid="map-land" /> : null}
        {tiles.map((t) => (
          <image key={t.key} href={t.href} x={t.x} y={t.y} width="256" height="256" />
        ))}
        {gridLines(topLeft.lon, bottomRight.lon, lonStep).map((lon) => {
          const x = project(0, lon, zz).x - x0;
          return (
            <g key={`lon${lon}`}>
              <line class="geo-grid" x1={x} y1="0" x2={x} y2={H} />
              <text class="geo-grid-label" x={x + 3} y={H - 6}>
                {lon.toFixed(digits)}°
              </text>
            </g>
          );
        })}
        {gridLines(bottomRight.lat, topLeft.lat, latStep).map((lat) => {
          const y = project(lat, 0, zz).y - y0;
          return (
            <g key={`lat${lat}`}>
              <line class="geo-grid" x1="0" y1={y} x2={W} y2={y} />
              <text class="geo-grid-label" x="4" y={y - 3}>
                {lat.toFixed(digits)}°
              </text>
            </g>
          );
        })}
        {places.map((p) => {
          const [x, y] = xy(p.lat, p.lon);
          return (
            <g key={`place-${p.id}`} class="geo-place">
              <circle cx={x} cy={y} r="3" />
              {p.label ? (
                <text x={x + 5} y={y + 4}>
                  {p.label}
                </text>
              ) : null}
            </g>
          );
        })}
        {lines.map((l) =>
          l.points.length > 1 && zz >= (l.minZoom ?? 0) ? (
            <g key={l.id}>
              <polyline
                class={`geo-line geo-${l.kind}`}
                data-testid={`map-${l.kind}`}
                data-id={l.id}
                points={l.points
                  .map((p) =>
                    xy(p.lat, p.lon)
                      .map((v) => v.toFixed(1))
                      .join(','),
                  )
                  .join(' ')}
              />
              {l.ends ? <LineEnds line={l} xy={xy} /> : null}
            </g>
          ) : null,
        )}
        {points.map((p) => {
          const q = project(p.lat, p.lon, zz);
          return (
            <g key={p.id} class={p.ok === false ? 'geo-marker bad' : 'geo-marker'}>
              <circle cx={q.x - x0} cy={q.y - y0} r="6" />
              {p.label ? (
                <text x={q.x - x0 + 10} y={q.y - y0 + 4}>
                  {p.label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption class="geo-caption">
        {points.length === 1
          ? `${formatLat(points[0]!.lat)}  ${formatLon(points[0]!.lon)}`
          : points.length === 0
            ? 'No position'
            : `${points.length} positions`}
        {tileUrl && !online ? ' · offline: grid only' : ''}
      </figcaption>
    </figure>
  );
}

/** A line's end labels, each set just beyond its end so the line itself stays clear. */
function LineEnds({ line, xy }: { line: MapLine; xy: (lat: number, lon: number) => [number, number] }) {
  const first = line.points[0]!;
  const last = line.points[line.points.length - 1]!;
  const [ax, ay] = xy(first.lat, first.lon);
  const [bx, by] = xy(last.lat, last.lon);
  const len = Math.hypot(bx - ax, by - ay) || 1;
  const [ux, uy] = [(bx - ax) / len, (by - ay) / len];
  const at = (x: number, y: number, sign: number, text: string) => (
    <text class="geo-line-end" x={x + sign * ux * 9} y={y + sign * uy * 9 + 4} text-anchor="middle">
      {text}
    </text>
  );
  return (
    <>
      {at(ax, ay, -1, line.ends![0])}
      {at(bx, by, 1, line.ends![1])}
    </>
  );
}

function midpoint(points: readonly MapPoint[], z: number): { lat: number; lon: number } {
  const ps = points.map((p) => project(p.lat, p.lon, z));
  const xs = ps.map((p) => p.x);
  const ys = ps.map((p) => p.y);
  return unproject((Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2, z);
}

function tileImages(template: string, z: number, x0: number, y0: number) {
  const n = 2 ** z;
  const out: Array<{ key: string; href: string; x: number; y: number }> = [];
  for (let tx = Math.floor(x0 / 256); tx * 256 < x0 + W; tx++) {
    for (let ty = Math.floor(y0 / 256); ty * 256 < y0 + H; ty++) {
      if (ty < 0 || ty >= n) continue;
      const wx = ((tx % n) + n) % n;
      const href = template.replace('{z}', String(z)).replace('{x}', String(wx)).replace('{y}', String(ty));
      out.push({ key: `${tx}/${ty}`, href, x: tx * 256 - x0, y: ty * 256 - y0 });
    }
  }
  return out;
}
