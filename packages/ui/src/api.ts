/** An HTTP answer that was not 2xx; `detail` is the server's `{"detail": ...}` text when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly body: unknown,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export interface ApiOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** Sees the response's headers (a total count beside a list, say) before the body is returned. */
  onHeaders?: (headers: Headers) => void;
  /** Extra request headers, e.g. a bearer token. */
  headers?: Record<string, string>;
}

/**
 * JSON request to this page's own origin (cookies included). Non-2xx answers throw ApiError with the
 * server's `detail`, so every screen can show the reason the server gave rather than a bare status.
 */
export async function apiFetch<T>(path: string, opts: ApiOptions = {}): Promise<T> {
  const init: RequestInit = {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...opts.headers,
    },
  };
  if (opts.body !== undefined) init.body = JSON.stringify(opts.body);
  if (opts.signal) init.signal = opts.signal;
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The service cannot be reached', null);
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
  if (!res.ok) throw new ApiError(res.status, detailOf(body) ?? `${res.status} ${res.statusText}`, body);
  opts.onHeaders?.(res.headers);
  return body as T;
}

function detailOf(body: unknown): string | null {
  if (body && typeof body === 'object' && 'detail' in body) {
    const d = (body as { detail: unknown }).detail;
    if (typeof d === 'string') return d;
    if (d !== undefined) return JSON.stringify(d);
  }
  return typeof body === 'string' && body.length > 0 && body.length < 300 ? body : null;
}

/** The text to show for any thrown value. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.detail;
  if (err instanceof Error) return err.message;
  return String(err);
}
