import { apiFetch, errorText, type LiveMessage, type LiveState, useLive } from '@outpost/ui';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { type FleetState, isFleetState } from './types.js';

/** The server pushes every second; silence this long means the view may be out of date. */
export const STALE_MS = 3000;

export interface Fleet {
  state: FleetState | null;
  receivedAt: number | null;
  live: LiveState;
  error: string | null;
}

/**
 * fleet_state over /ws (sent on connect and at 1 Hz). While the socket is down (a proxy that drops
 * upgrades, the client limit), GET /api/status is polled at the same cadence instead.
 */
export function useFleet(): Fleet {
  const [state, setState] = useState<FleetState | null>(null);
  const [receivedAt, setReceivedAt] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const accept = useCallback((v: unknown) => {
    if (!isFleetState(v)) return;
    setState(v);
    setReceivedAt(Date.now());
    setError(null);
  }, []);
  const { state: live } = useLive('/ws', (msg: LiveMessage) => accept(msg), 5000);

  useEffect(() => {
    if (live === 'open') return;
    let stop = false;
    const poll = () =>
      apiFetch<unknown>('/api/status')
        .then((v) => {
          if (!stop) accept(v);
        })
        .catch((err) => {
          if (!stop) setError(errorText(err));
        });
    const first = setTimeout(poll, live === 'connecting' ? 1000 : 0);
    const t = setInterval(poll, 1000);
    return () => {
      stop = true;
      clearTimeout(first);
      clearInterval(t);
    };
  }, [live, accept]);

  return { state, receivedAt, live, error };
}
