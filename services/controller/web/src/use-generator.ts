import { errorText } from '@outpost/ui';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.js';
import type { GenState } from './types.js';

/** The controller has no WebSocket: the state is polled once a second (and at once after an action). */
export const POLL_MS = 1000;

export function useGenerator() {
  const [state, setState] = useState<GenState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const inFlight = useRef(false);

  const refresh = useCallback(async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    try {
      setState(await api<GenState>('/api/generator/state'));
      setError(null);
      setUpdatedAt(Date.now());
    } catch (err) {
      setError(errorText(err));
    } finally {
      inFlight.current = false;
    }
  }, []);

  useEffect(() => {
    void refresh();
    const t = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(t);
  }, [refresh]);

  return { state, error, updatedAt, refresh };
}
