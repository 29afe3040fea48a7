import { apiFetch, errorText, toneClass } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import type { Post, Runway } from './types.js';

type Loaded = { icao: string; runways: Runway[] } | { icao: string; error: string } | null;

/** The runway ends of the chosen airport, each with the true heading the aircraft will face. */
function endsOf(runways: Runway[]) {
  return runways.flatMap((r) =>
    [r.le, r.he].map((e) => ({ ident: e.ident, heading: e.heading_deg, runway: r })),
  );
}

/** An airport's runways from the server, asked again when the code changes; null while loading. */
export function useRunways(icao: string): Loaded {
  const [loaded, setLoaded] = useState<Loaded>(null);
  useEffect(() => {
    const ctl = new AbortController();
    apiFetch<{ runways: Runway[] }>(`/api/airports/runways/${encodeURIComponent(icao)}`, {
      signal: ctl.signal,
    })
      .then((r) => setLoaded({ icao, runways: r.runways }))
      .catch((err) => {
        if ((err as Error).name !== 'AbortError') setLoaded({ icao, error: errorText(err) });
      });
    return () => ctl.abort();
  }, [icao]);
  return loaded && loaded.icao === icao ? loaded : null;
}

/** One option per runway end: ident, true heading, length and surface. */
export function RunwayOptions({ runways }: { runways: Runway[] }) {
  return (
    <>
      {endsOf(runways).map((end) => (
        <option key={end.ident} value={end.ident}>
          {end.ident} · {Math.round(end.heading)}° true
          {end.runway.length_ft !== null ? ` · ${end.runway.length_ft.toLocaleString('en')} ft` : ''}
          {end.runway.surface ? ` · ${end.runway.surface}` : ''}
        </option>
      ))}
    </>
  );
}

/**
 * "Line up on runway": beside the airport picker, the chosen airport's runway ends; lining up puts the
 * aircraft on that threshold, stopped, on the runway's true heading.
 */
export function RunwayLineUp({ icao, post }: { icao: string; post: Post }) {
  const loaded = useRunways(icao);
  const [choice, setChoice] = useState('');
  useEffect(() => setChoice(''), [icao]);

  if (!loaded) return null;
  if ('error' in loaded) return <p class={toneClass('error')}>{loaded.error}</p>;
  if (loaded.runways.length === 0) {
    return (
      <p class="muted" data-testid="no-runways">
        No runway of {icao} in the table
      </p>
    );
  }
  const lineUp = async (e: Event) => {
    e.preventDefault();
    if (choice !== '') await post('/api/position/runway', { airport: icao, runway: choice });
  };
  return (
    <form class="row" onSubmit={lineUp} aria-label="Line up on runway">
      <label class="field">
        <span>Line up on runway</span>
        <select name="runway" value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
          <option value="">Choose a runway end</option>
          <RunwayOptions runways={loaded.runways} />
        </select>
      </label>
      <button type="submit" disabled={choice === ''}>
        Line up
      </button>
    </form>
  );
}

/** A route's first airport: start there on the ground (no choice) or lined up on one of its runway ends. */
export function RunwayStart({
  icao,
  runway,
  onChange,
}: {
  icao: string;
  runway: string | undefined;
  onChange: (runway: string | undefined) => void;
}) {
  const loaded = useRunways(icao);
  if (!loaded || 'error' in loaded || loaded.runways.length === 0) return null;
  return (
    <label class="field">
      <span>Start on runway</span>
      <select
        name="route-start-runway"
        value={runway ?? ''}
        onChange={(e) => onChange(e.currentTarget.value || undefined)}
      >
        <option value="">At the airport, lined up with the first leg</option>
        <RunwayOptions runways={loaded.runways} />
      </select>
    </label>
  );
}
