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

/**
 * "Line up on runway": beside the airport picker, the chosen airport's runway ends; lining up puts the
 * aircraft on that threshold, stopped, on the runway's true heading.
 */
export function RunwayLineUp({ icao, post }: { icao: string; post: Post }) {
  const [loaded, setLoaded] = useState<Loaded>(null);
  const [choice, setChoice] = useState('');

  useEffect(() => {
    const ctl = new AbortController();
    setChoice('');
    apiFetch<{ runways: Runway[] }>(`/api/airports/runways/${encodeURIComponent(icao)}`, {
      signal: ctl.signal,
    })
      .then((r) => setLoaded({ icao, runways: r.runways }))
      .catch((err) => {
        if ((err as Error).name !== 'AbortError') setLoaded({ icao, error: errorText(err) });
      });
    return () => ctl.abort();
  }, [icao]);

  if (!loaded || loaded.icao !== icao) return null;
  if ('error' in loaded) return <p class={toneClass('error')}>{loaded.error}</p>;
  const ends = endsOf(loaded.runways);
  if (ends.length === 0) {
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
          {ends.map((end) => (
            <option key={end.ident} value={end.ident}>
              {end.ident} · {Math.round(end.heading)}° true
              {end.runway.length_ft !== null ? ` · ${end.runway.length_ft.toLocaleString('en')} ft` : ''}
              {end.runway.surface ? ` · ${end.runway.surface}` : ''}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={choice === ''}>
        Line up
      </button>
    </form>
  );
}
