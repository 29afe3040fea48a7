import { apiFetch, Card, errorText, formatLat, formatLon, toneClass, useDebounced } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { RunwayLineUp } from './runway-line-up.js';
import type { Airport, Post, Status } from './types.js';

/** The spec's picker debounce. */
const DEBOUNCE_MS = 200;

type Results = { q: string; airports: Airport[] } | { q: string; error: string } | null;

export function AirportPicker({
  status,
  airport,
  post,
}: {
  status: Status;
  airport: Airport | null;
  post: Post;
}) {
  const [query, setQuery] = useState('');
  const q = useDebounced(query.trim(), DEBOUNCE_MS);
  const [results, setResults] = useState<Results>(null);

  useEffect(() => {
    if (q === '') {
      setResults(null);
      return;
    }
    const ctl = new AbortController();
    apiFetch<{ airports: Airport[] }>(`/api/airports/search?q=${encodeURIComponent(q)}&limit=10`, {
      signal: ctl.signal,
    })
      .then((r) => setResults({ q, airports: r.airports }))
      .catch((err) => {
        if ((err as Error).name !== 'AbortError') setResults({ q, error: errorText(err) });
      });
    return () => ctl.abort();
  }, [q]);

  const pick = async (a: Airport) => {
    if (await post('/api/position', { airport_icao: a.icao })) {
      setQuery('');
      setResults(null);
    }
  };

  return (
    <Card title="Airport" id="airport">
      <p data-testid="selected-airport">
        {status.airport_icao ? (
          <>
            <strong>{status.airport_icao}</strong> {airport?.icao === status.airport_icao ? airport.name : ''}
            {airport?.icao === status.airport_icao ? (
              <span class="muted">
                {' '}
                · {formatLat(airport.lat, 4)} {formatLon(airport.lon, 4)} ·{' '}
                {airport.elevation_known === false ? (
                  <span class={toneClass('missing')} data-testid="elevation-unknown">
                    elevation unknown, starting at 0 ft
                  </span>
                ) : (
                  `${airport.elevation_ft} ft`
                )}
              </span>
            ) : null}
          </>
        ) : (
          <span class="muted">No airport selected</span>
        )}
      </p>
      {status.airport_icao ? <RunwayLineUp icao={status.airport_icao} post={post} /> : null}
      <label class="field">
        <span>Search by ICAO code or name</span>
        <input
          type="search"
          name="airport-search"
          placeholder="e.g. KSEA or Seattle"
          autocomplete="off"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </label>
      {results && 'error' in results ? <p class={toneClass('error')}>{results.error}</p> : null}
      {results && 'airports' in results ? (
        results.airports.length === 0 ? (
          <p class="muted">No airports found</p>
        ) : (
          <ul class="list" aria-label="Airports found">
            {results.airports.map((a) => (
              <li key={a.icao}>
                <button type="button" onClick={() => void pick(a)}>
                  <strong>{a.icao}</strong> {a.name}
                  {a.elevation_known === false ? <span class="muted"> · elevation unknown</span> : null}
                </button>
              </li>
            ))}
          </ul>
        )
      ) : null}
    </Card>
  );
}
