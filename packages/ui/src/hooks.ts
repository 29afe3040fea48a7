import { useEffect, useRef, useState } from 'preact/hooks';
import { connectLive, type LiveMessage, type LiveState } from './live.js';

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/** navigator.onLine, kept current. */
export function useOnline(): boolean {
  const [online, setOnline] = useState(typeof navigator === 'undefined' ? false : navigator.onLine);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    addEventListener('online', on);
    addEventListener('offline', off);
    return () => {
      removeEventListener('online', on);
      removeEventListener('offline', off);
    };
  }, []);
  return online;
}

/** A reconnecting WebSocket for the component's lifetime; the handler may change between renders. */
export function useLive(
  path: string | null,
  onMessage: (msg: LiveMessage) => void,
  silenceMs = 0,
): { state: LiveState; send: (msg: unknown) => boolean } {
  const [state, setState] = useState<LiveState>('connecting');
  const handler = useRef(onMessage);
  handler.current = onMessage;
  const conn = useRef<ReturnType<typeof connectLive> | null>(null);
  useEffect(() => {
    if (!path) return;
    const c = connectLive({ path, silenceMs, onMessage: (m) => handler.current(m), onState: setState });
    conn.current = c;
    return () => {
      c.close();
      conn.current = null;
    };
  }, [path, silenceMs]);
  return { state, send: (msg) => conn.current?.send(msg) ?? false };
}

/** Re-renders every `ms` (for ages shown relative to now). */
export function useTick(ms: number): number {
  const [n, setN] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setN((x) => x + 1), ms);
    return () => clearInterval(t);
  }, [ms]);
  return n;
}
