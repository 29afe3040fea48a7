import type { relaynode, relaynodeSystem } from '@outpost/contracts';
import { ApiError, type ApiOptions, apiFetch } from '@outpost/ui';
import type { z } from 'zod';

const TOKEN_KEY = 'outpost.controller.token';

function stored(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

let token: string | null = stored();
let expired: ((message?: string) => void) | null = null;

export const session = {
  get token(): string | null {
    return token;
  },
  set(t: string): void {
    token = t;
    try {
      localStorage.setItem(TOKEN_KEY, t);
    } catch {
      // private mode: the token lives for this page only
    }
  },
  clear(): void {
    token = null;
    try {
      localStorage.removeItem(TOKEN_KEY);
    } catch {
      // nothing stored
    }
  },
  /** Called once when the server stops accepting the token (expired, revoked, password changed). */
  onExpired(fn: ((message?: string) => void) | null): void {
    expired = fn;
  },
  /** Ends this session on purpose (the password was changed, so every token was revoked). */
  end(message: string): void {
    session.clear();
    expired?.(message);
  },
};

/**
 * The controller wants a bearer token rather than a cookie, so every call carries it; a 401 on a
 * call that sent one means the session is over and the console goes back to the login form.
 */
export async function api<T>(path: string, opts: ApiOptions = {}): Promise<T> {
  const sent = token;
  try {
    return await apiFetch<T>(path, {
      ...opts,
      headers: { ...opts.headers, ...(sent ? { authorization: `Bearer ${sent}` } : {}) },
    });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && sent && sent === token) {
      session.clear();
      expired?.();
    }
    throw err;
  }
}

/**
 * Relay node WiFi and power administration, proxied by the controller over MQTT. A WiFi password goes
 * out in a request body only; no answer type has a field for it.
 */
export type VisibleWifi = z.infer<typeof relaynode.WifiNetwork>;
export type SavedWifi = z.infer<typeof relaynodeSystem.SavedWifiNetwork>;
type WifiAction = z.infer<typeof relaynodeSystem.WifiActionResult>;
type WifiForgot = z.infer<typeof relaynodeSystem.WifiForgetResult>;
type PowerAnswer = z.infer<typeof relaynodeSystem.PowerResult>;

export const relaynodeAdmin = {
  scan: () => api<{ networks: VisibleWifi[] }>('/api/relaynode/wifi/scan'),
  saved: () => api<{ networks: SavedWifi[] }>('/api/relaynode/wifi'),
  add: (ssid: string, password: string, auto_connect: boolean) =>
    api<WifiAction>('/api/relaynode/wifi/add', { body: { ssid, password, auto_connect } }),
  connect: (ssid: string, password: string) =>
    api<WifiAction>('/api/relaynode/wifi/connect', { body: { ssid, password } }),
  forget: (ssid: string) => api<WifiForgot>('/api/relaynode/wifi/forget', { body: { ssid } }),
  power: (action: 'reboot' | 'shutdown') =>
    api<PowerAnswer>(`/api/relaynode/${action}`, { body: { confirm: true } }),
};

/** The relay node's report-signing key as the controller pinned it (fingerprint: hex pairs). */
export interface PinnedNodeKey {
  pinned: boolean;
  public_key: string | null;
  fingerprint: string | null;
}

export const relaynodeKey = {
  get: () => api<PinnedNodeKey>('/api/relaynode/key'),
  forget: () => api<PinnedNodeKey>('/api/relaynode/key', { method: 'DELETE' }),
};
