export type LiveState = 'connecting' | 'open' | 'closed';

export interface LiveMessage {
  type: string;
  data?: unknown;
  [key: string]: unknown;
}

export interface LiveOptions {
  /** Path on this page's origin (ws: or wss: follows the page's scheme). */
  path: string;
  onMessage: (msg: LiveMessage) => void;
  onState?: (state: LiveState) => void;
  /** First retry delay; doubles up to maxDelayMs. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** A server that sends nothing for this long is treated as gone (0 disables). */
  silenceMs?: number;
}

export interface LiveConnection {
  close(): void;
  send(msg: unknown): boolean;
}

export function wsUrl(path: string, loc: Pick<Location, 'protocol' | 'host'> = location): string {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}${path}`;
}

/**
 * A WebSocket that reconnects with capped exponential backoff (and at once when the browser comes back
 * online), delivering parsed `{type, ...}` messages. Services send a snapshot on connect, so nothing
 * has to be replayed after a reconnect.
 */
export function connectLive(opts: LiveOptions): LiveConnection {
  const minDelay = opts.minDelayMs ?? 500;
  const maxDelay = opts.maxDelayMs ?? 10_000;
  let delay = minDelay;
  let ws: WebSocket | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let watchdog: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  const setState = (s: LiveState) => opts.onState?.(s);
  const armWatchdog = () => {
    if (!opts.silenceMs) return;
    if (watchdog) clearTimeout(watchdog);
    watchdog = setTimeout(() => ws?.close(), opts.silenceMs);
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      open();
    }, delay);
    delay = Math.min(maxDelay, delay * 2);
  };
  const open = () => {
    if (stopped) return;
    setState('connecting');
    const sock = new WebSocket(wsUrl(opts.path));
    ws = sock;
    sock.onopen = () => {
      delay = minDelay;
      setState('open');
      armWatchdog();
    };
    sock.onmessage = (evt) => {
      armWatchdog();
      if (typeof evt.data !== 'string') return;
      let msg: unknown;
      try {
        msg = JSON.parse(evt.data);
      } catch {
        return;
      }
      if (msg && typeof msg === 'object' && typeof (msg as LiveMessage).type === 'string') {
        opts.onMessage(msg as LiveMessage);
      }
    };
    sock.onclose = () => {
      if (ws !== sock) return;
      ws = null;
      if (watchdog) clearTimeout(watchdog);
      setState('closed');
      schedule();
    };
    // onclose follows every error; reconnecting is handled there.
    sock.onerror = () => {};
  };
  const online = () => {
    if (ws || stopped) return;
    if (retry) clearTimeout(retry);
    retry = null;
    delay = minDelay;
    open();
  };
  addEventListener('online', online);
  open();

  return {
    close() {
      stopped = true;
      removeEventListener('online', online);
      if (retry) clearTimeout(retry);
      if (watchdog) clearTimeout(watchdog);
      ws?.close();
      ws = null;
    },
    send(msg) {
      if (!ws || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(JSON.stringify(msg));
      return true;
    },
  };
}
