import { ApiError, type ApiOptions } from '@outpost/ui';

const TOKEN_KEY = 'outpost.controller.token';

function stored(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

let token: string | null = stored();
let expired: (() => void) | null = null;

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
  onExpired(fn: (() => void) | null): void {
    expired = fn;
  },
};

/**
 * The controller wants a bearer token rather than a cookie, so every call carries it; a 401 on a
 * call that sent one means the session is over and the console goes back to the login form.
 */
export async function api<T>(path: string, opts: ApiOptions = {}): Promise<T> {
  const init: RequestInit = {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers: {
      accept: 'application/json',
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  };
  if (opts.body !== undefined) init.body = JSON.stringify(opts.body);
  if (opts.signal) init.signal = opts.signal;
  const sent = token;
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The controller cannot be reached', null);
  }
  const text = await res.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (!res.ok) {
    if (res.status === 401 && sent && sent === token) {
      session.clear();
      expired?.();
    }
    throw new ApiError(res.status, detailOf(body) ?? `${res.status} ${res.statusText}`, body);
  }
  return body as T;
}

function detailOf(body: unknown): string | null {
  if (body && typeof body === 'object' && 'detail' in body) {
    const d = (body as { detail: unknown }).detail;
    return typeof d === 'string' ? d : JSON.stringify(d);
  }
  return typeof body === 'string' && body.length > 0 && body.length < 300 ? body : null;
}
