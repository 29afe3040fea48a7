import type { simulator } from '@outpost/contracts';
import { ApiError, apiFetch, Card, errorText, formatLat, formatLon, useDebounced } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import type { SimulatorStore } from './use-simulator.js';
import { RunwayStart } from './runway-line-up.js';
import type { Airport, Status } from './types.js';

type Point = simulator.FlightPlanPoint;

const pointLabel = (p: Point): string =>
  'runway' in p
    ? `${p.icao} runway ${p.runway}`
    : 'icao' in p
      ? p.icao
      : (p.name ?? `${formatLat(p.lat, 4)} ${formatLon(p.lon, 4)}`);

function useAirportSearch(query: string): Airport[] {
  const q = useDebounced(query.trim(), 200);
  const [found, setFound] = useState<Airport[]>([]);
  useEffect(() => {
    if (q === '') {
      setFound([]);
      return;
    }
    const ctl = new AbortController();
    apiFetch<{ airports: Airport[] }>(`/api/airports/search?q=${encodeURIComponent(q)}&limit=8`, {
      signal: ctl.signal,
    })
      .then((r) => setFound(r.airports))
      .catch(() => setFound([]));
    return () => ctl.abort();
  }, [q]);
  return found;
}

function Progress({ view }: { view: simulator.FlightPlanStatus | undefined }) {
  const p = view?.progress;
  if (!p) return <p class="muted">No flight plan</p>;
  return (
    <p data-testid="flight-progress">
      <strong>{p.phase}</strong> · leg {p.leg} {p.from} → {p.to} · {p.leg_distance_to_go_nm.toFixed(1)} NM on
      this leg, {p.distance_to_go_nm.toFixed(1)} NM to go
      {p.eta ? ` · ETA ${p.eta.slice(11, 16)}Z` : ''}
    </p>
  );
}

/**
 * The route editor: airports found by code or name, or coordinates, in order; the cruise profile;
 * PUT to fly it, DELETE to drop it. The server's 422 messages show as the banner.
 */
export function RouteEditor({ status, store }: { status: Status; store: SimulatorStore }) {
  const [points, setPoints] = useState<Point[]>([]);
  const [query, setQuery] = useState('');
  const [coords, setCoords] = useState('');
  const [profile, setProfile] = useState({
    cruise_altitude_ft: 4500,
    cruise_speed_kts: 120,
    climb_rate_fpm: 700,
    descent_rate_fpm: 500,
  });
  const [loop, setLoop] = useState(false);
  const found = useAirportSearch(query);

  // The answer also reaches every console as a status_update, which carries the plan and position.
  const send = async (method: 'PUT' | 'DELETE', body?: unknown) => {
    try {
      await apiFetch<simulator.FlightPlanStatus>('/api/flightplan', { method, body });
      store.setError(null);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) store.setError(errorText(err));
    }
  };

  const addCoords = () => {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*[, ]\s*(-?\d+(?:\.\d+)?)\s*$/.exec(coords);
    if (!m) {
      store.setError('Enter coordinates as "lat, lon", e.g. 37.62, -122.38');
      return;
    }
    setPoints([...points, { lat: Number(m[1]), lon: Number(m[2]) }]);
    setCoords('');
  };

  const num = (key: keyof typeof profile, label: string) => (
    <label class="field">
      <span>{label}</span>
      <input
        type="number"
        name={key}
        value={profile[key]}
        onInput={(e) => setProfile({ ...profile, [key]: Number(e.currentTarget.value) })}
      />
    </label>
  );

  return (
    <Card title="Flight plan" id="flight-plan">
      <Progress view={status.flight_plan} />
      <ol aria-label="Route">
        {points.map((p, i) => (
          <li key={`${i}-${pointLabel(p)}`}>
            {pointLabel(p)}{' '}
            <button
              type="button"
              aria-label={`Remove ${pointLabel(p)}`}
              onClick={() => setPoints(points.filter((_, k) => k !== i))}
            >
              ×
            </button>
          </li>
        ))}
      </ol>
      {points[0] && 'icao' in points[0] ? (
        <RunwayStart
          icao={points[0].icao}
          runway={'runway' in points[0] ? points[0].runway : undefined}
          onChange={(runway) => {
            const icao = (points[0] as { icao: string }).icao;
            setPoints([runway ? { icao, runway } : { icao }, ...points.slice(1)]);
          }}
        />
      ) : null}
      <label class="field">
        <span>Add an airport (ICAO code or name)</span>
        <input
          type="search"
          name="route-airport-search"
          autocomplete="off"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </label>
      {found.length > 0 ? (
        <ul class="list" aria-label="Route airports found">
          {found.map((a) => (
            <li key={a.icao}>
              <button
                type="button"
                onClick={() => {
                  setPoints([...points, { icao: a.icao }]);
                  setQuery('');
                }}
              >
                <strong>{a.icao}</strong> {a.name}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div class="row">
        <label class="field">
          <span>Or coordinates (lat, lon)</span>
          <input
            type="text"
            name="route-coords"
            value={coords}
            onInput={(e) => setCoords(e.currentTarget.value)}
          />
        </label>
        <button type="button" onClick={addCoords}>
          Add point
        </button>
      </div>
      <div class="row">
        {num('cruise_altitude_ft', 'Cruise altitude (ft)')}
        {num('cruise_speed_kts', 'Cruise speed (kt)')}
      </div>
      <div class="row">
        {num('climb_rate_fpm', 'Climb (ft/min)')}
        {num('descent_rate_fpm', 'Descent (ft/min)')}
      </div>
      <label class="check">
        <input
          type="checkbox"
          name="route-loop"
          checked={loop}
          onChange={(e) => setLoop(e.currentTarget.checked)}
        />
        <span>Loop at the end</span>
      </label>
      <div class="row">
        <button type="button" onClick={() => void send('PUT', { points, ...profile, loop })}>
          Fly this route
        </button>
        <button type="button" onClick={() => void send('DELETE')}>
          Clear flight plan
        </button>
      </div>
    </Card>
  );
}
