import type { SendOptions, SendResult } from './types.js';

export interface HttpRequest {
  url: string;
  method: 'POST' | 'PUT' | 'PATCH';
  headers?: Record<string, string>;
  body: string | URLSearchParams;
}

/** Reads the provider's own error text from a JSON reply: Telegram `description`, Pushover `errors`, … */
function providerDetail(text: string): string {
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    if (typeof json.description === 'string') return json.description;
    if (Array.isArray(json.errors)) return json.errors.map(String).join(', ');
    if (typeof json.message === 'string') return json.message;
    if (typeof json.error === 'string') return json.error;
  } catch {
    // plain text reply (Slack answers `invalid_token`)
  }
  return text.trim();
}

/** At most `n` printable characters: an error is shown to the user, and must not carry a page back. */
const clip = (s: string, n = 120) => {
  const flat = s.replace(/[^\x20-\x7e]+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n)}…` : flat;
};

/** Labels of targets at an address the user typed: their reply bodies are never echoed. */
const ANY_HOST = new Set(['webhook', 'json']);

/** The error code of a network failure, never the URL (which may carry a token) nor an address. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } })?.cause;
  if (cause && typeof cause.code === 'string' && /^[A-Z_]{2,40}$/.test(cause.code)) return cause.code;
  return 'network error';
}

/**
 * One HTTP request with a timeout. A reply is a success when it is 2xx and `accept` (if given) finds
 * nothing wrong with its JSON. 5xx, 408, 429 and network failures are retryable; other 4xx are not.
 */
export async function httpSend(
  label: string,
  req: HttpRequest,
  opts: SendOptions,
  accept?: (json: unknown) => string | null,
): Promise<SendResult> {
  const doFetch = opts.fetch ?? fetch;
  if (opts.outbound) {
    let host = '';
    try {
      host = new URL(req.url).hostname;
    } catch {
      return { ok: false, error: `${label}: not a URL`, retryable: false };
    }
    const refused = await opts.outbound(host);
    if (refused) return { ok: false, error: `${label}: ${refused}`, retryable: false };
  }
  let res: Response;
  try {
    res = await doFetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: AbortSignal.timeout(opts.timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    const name = (err as { name?: string })?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      return { ok: false, error: `${label}: no reply within ${opts.timeoutMs} ms`, retryable: true };
    }
    return { ok: false, error: `${label}: ${networkReason(err)}`, retryable: true };
  }
  let text = '';
  try {
    text = await res.text();
  } catch {
    // a body cut short still leaves the status to judge by
  }
  if (!res.ok) {
    const detail = ANY_HOST.has(label) ? '' : clip(providerDetail(text));
    const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
    return { ok: false, error: `${label}: HTTP ${res.status}${detail ? ` ${detail}` : ''}`, retryable };
  }
  if (accept) {
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, error: `${label}: reply is not JSON`, retryable: true };
    }
    const problem = accept(json);
    if (problem) return { ok: false, error: `${label}: ${clip(problem)}`, retryable: false };
  }
  return { ok: true };
}

/** Moves a URL on a provider's public origin to the configured one (tests, proxies). */
export function rebase(url: string, defaultOrigin: string, override: string | undefined): string {
  if (!override) return url;
  const base = override.replace(/\/+$/, '');
  return url.startsWith(`${defaultOrigin}/`) ? base + url.slice(defaultOrigin.length) : url;
}

export const jsonHeaders = {
  'content-type': 'application/json; charset=utf-8',
  'user-agent': 'outpost-notify/1',
};
