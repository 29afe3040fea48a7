import { ApiError, apiFetch, errorText, type LiveMessage, useLive } from '@outpost/ui';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Airport, Status } from './types.js';

/** Lines kept in the live NMEA log; older ones scroll away. */
const LOG_LINES = 200;

export interface SimulatorStore {
  status: Status | null;
  airport: Airport | null;
  log: string[];
  live: ReturnType<typeof useLive>['state'];
  /** The last failed request's detail, shown until dismissed or the next success. */
  error: string | null;
  clearError: () => void;
  /** POSTs and merges the answered state; false when it failed (the error is shown). */
  post: (path: string, body: unknown) => Promise<boolean>;
  /** Resolves when every setting sent so far has been answered. */
  settled: () => Promise<void>;
  setError: (e: string | null) => void;
  /** The newest merged state, for handlers that run after awaiting. */
  latest: () => Status | null;
}

/** The console's state: REST answers and WS status_update partials merge into one status object. */
export function useSimulator(onUnauthorized: () => void): SimulatorStore {
  const [status, setStatus] = useState<Status | null>(null);
  const [airport, setAirport] = useState<Airport | null>(null);
  const [log, setLog] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const pending = useRef(new Set<Promise<unknown>>());

  const latestRef = useRef<Status | null>(null);
  const merge = useCallback((partial: Partial<Status>) => {
    const next = { ...(latestRef.current ?? {}), ...partial } as Status;
    latestRef.current = next;
    setStatus(next);
  }, []);

  const onMessage = useCallback(
    (msg: LiveMessage) => {
      const data = (msg.data ?? {}) as Record<string, unknown>;
      if (msg.type === 'status_update' || msg.type === 'position_update') merge(data as Partial<Status>);
      else if (msg.type === 'nmea_output' && Array.isArray(data.sentences)) {
        const lines = data.sentences
          .filter((l): l is string => typeof l === 'string')
          .map((l) => l.replace(/[\r\n]+$/, ''));
        setLog((old) => {
          const next = old.concat(lines);
          return next.length > LOG_LINES ? next.slice(next.length - LOG_LINES) : next;
        });
      }
    },
    [merge],
  );
  const live = useLive('/ws', onMessage);

  // Another browser may pick the airport: the server broadcasts the code and each console fetches the record.
  const icao = status?.airport_icao ?? null;
  useEffect(() => {
    if (!icao) {
      setAirport(null);
      return;
    }
    if (airport?.icao === icao) return;
    const ctl = new AbortController();
    apiFetch<{ airport: Airport }>(`/api/airports/lookup/${encodeURIComponent(icao)}`, { signal: ctl.signal })
      .then((r) => setAirport(r.airport))
      .catch(() => {});
    return () => ctl.abort();
  }, [icao, airport?.icao]);

  useEffect(() => {
    apiFetch<Status>('/api/status')
      .then((s) => merge(s))
      .catch((err) => {
        if (err instanceof ApiError && err.status === 401) onUnauthorized();
        else setError(errorText(err));
      });
  }, [merge, onUnauthorized]);

  const post = useCallback(
    async (path: string, body: unknown): Promise<boolean> => {
      const p = apiFetch<Status>(path, { body });
      pending.current.add(p);
      try {
        merge(await p);
        setError(null);
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) onUnauthorized();
        setError(errorText(err));
        return false;
      } finally {
        pending.current.delete(p);
      }
    },
    [merge, onUnauthorized],
  );

  const settled = useCallback(async () => {
    while (pending.current.size > 0) await Promise.allSettled([...pending.current]);
  }, []);

  return {
    status,
    airport,
    log,
    live: live.state,
    error,
    clearError: () => setError(null),
    post,
    settled,
    setError,
    latest: () => latestRef.current,
  };
}
