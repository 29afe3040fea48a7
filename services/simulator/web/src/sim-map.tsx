import { apiFetch, Card, GeoMap, type MapLine, type MapPoint } from '@outpost/ui';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Airport, Runway, Status } from './types.js';

/** Track points kept for the map: half an hour at 1 Hz. */
const TRACK_POINTS = 1800;

/** The aircraft's track from the live positions while it runs; a jump (new airport, new plan) starts afresh. */
function useTrack(status: Status): Array<{ lat: number; lon: number }> {
  const [track, setTrack] = useState<Array<{ lat: number; lon: number }>>([]);
  const { lat, lon, running } = status;
  useEffect(() => {
    if (!running) return;
    setTrack((old) => {
      const last = old[old.length - 1];
      if (last && last.lat === lat && last.lon === lon) return old;
      // More than ~20 NM in one step is a jump, not flight.
      const jumped = last && Math.hypot(last.lat - lat, last.lon - lon) > 0.3;
      const next = jumped ? [{ lat, lon }] : [...old, { lat, lon }];
      return next.length > TRACK_POINTS ? next.slice(next.length - TRACK_POINTS) : next;
    });
  }, [lat, lon, running]);
  return track;
}

/** Airports around the aircraft, asked again only when it has moved a tenth of a degree. */
function useNearbyAirports(lat: number, lon: number): Airport[] {
  const [airports, setAirports] = useState<Airport[]>([]);
  const key = `${lat.toFixed(1)},${lon.toFixed(1)}`;
  const asked = useRef('');
  useEffect(() => {
    if (asked.current === key) return;
    asked.current = key;
    const ctl = new AbortController();
    apiFetch<{ airports: Airport[] }>(`/api/airports/near?lat=${lat}&lon=${lon}&radius_nm=40&limit=40`, {
      signal: ctl.signal,
    })
      .then((r) => setAirports(r.airports))
      .catch(() => {});
    return () => ctl.abort();
  }, [key, lat, lon]);
  return airports;
}

/** Runways are drawn from this zoom on (MapLibre's; about 15 NM across the map): the scale of one airfield. */
const RUNWAY_ZOOM = 9;
/** The map's zoom while the aircraft stands at an airport: about 4 NM across. */
const STANDING_ZOOM = 11;

/** Runways around the aircraft, asked again only when it has moved a twentieth of a degree. */
function useNearbyRunways(lat: number, lon: number): Runway[] {
  const [runways, setRunways] = useState<Runway[]>([]);
  const key = `${(lat * 20).toFixed(0)},${(lon * 20).toFixed(0)}`;
  const asked = useRef('');
  useEffect(() => {
    if (asked.current === key) return;
    asked.current = key;
    const ctl = new AbortController();
    apiFetch<{ runways: Runway[] }>(`/api/runways/near?lat=${lat}&lon=${lon}&radius_nm=15&limit=300`, {
      signal: ctl.signal,
    })
      .then((r) => setRunways(r.runways))
      .catch(() => {});
    return () => ctl.abort();
  }, [key, lat, lon]);
  return runways;
}

/** The console's map: land, nearby airports and (at airport scale) their runways, the route being flown, the track and the aircraft. */
export function SimMap({ status }: { status: Status }) {
  const track = useTrack(status);
  const airports = useNearbyAirports(status.lat, status.lon);
  const route = status.flight_plan?.plan?.waypoints ?? [];
  const runways = useNearbyRunways(status.lat, status.lon);
  // Stopped at an airport (picked, or lined up on a runway): close enough to tell the runways apart.
  const standing = status.airport_icao !== null && status.speed_kts < 1 && route.length === 0;
  const lines: MapLine[] = [
    ...runways.map((r) => ({
      id: `rwy-${r.icao}-${r.le.ident}-${r.he.ident}`,
      kind: 'runway' as const,
      points: [r.le, r.he],
      minZoom: RUNWAY_ZOOM,
      ends: [r.le.ident, r.he.ident] as const,
    })),
    { id: 'route', kind: 'route', points: route },
    { id: 'track', kind: 'track', points: track },
  ];
  const points: MapPoint[] = [
    ...route.map((w, i) => ({ id: `wp-${i}`, lat: w.lat, lon: w.lon, label: w.name })),
    { id: 'sim', lat: status.lat, lon: status.lon, label: status.airport_icao ?? undefined },
  ];
  const places = airports.map((a) => ({ id: a.icao, lat: a.lat, lon: a.lon, label: a.icao }));
  return (
    <Card title="Map">
      <GeoMap
        label="Simulator position"
        points={points}
        lines={lines}
        places={places}
        zoom={standing ? STANDING_ZOOM : undefined}
      />
    </Card>
  );
}
