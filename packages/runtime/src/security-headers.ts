import {
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  ServerResponse,
} from 'node:http';
import type { Context } from 'hono';

/**
 * The response hardening headers every gateway sends (the OWASP secure-headers set, without
 * Cross-Origin-Embedder-Policy, which would block the consoles' own assets in some browsers).
 * Lower-case, as Node and the Fetch API hand header names around. Strict-Transport-Security is apart
 * (HSTS_HEADER): a browser ignores it over plain HTTP, and sent there it only claims a protection
 * that is not in place.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
/** Sent only by HTTPS listeners. */
export const HSTS_HEADER = ['strict-transport-security', 'max-age=15552000; includeSubDomains'] as const;
const ENTRIES = Object.entries(SECURITY_HEADERS);
const TLS_ENTRIES: [string, string][] = [...ENTRIES, [...HSTS_HEADER]];

/**
 * A Node response that adds SECURITY_HEADERS at writeHead; a header the route set itself wins.
 * Merging into the one header object Node writes keeps a small JSON answer on Node's fast path:
 * setting the same headers per request (Hono's middleware, or setHeader) costs a third of a
 * small GET's time.
 */
export class HardenedResponse<Req extends IncomingMessage = IncomingMessage> extends ServerResponse<Req> {
  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    maybeHeaders?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const hasReason = typeof reasonOrHeaders === 'string';
    const given = hasReason ? maybeHeaders : reasonOrHeaders;
    const headers = mergeHeaders(given, this as ServerResponse, this.hardeningHeaders());
    return hasReason
      ? super.writeHead(statusCode, reasonOrHeaders, headers)
      : super.writeHead(statusCode, headers);
  }

  protected hardeningHeaders(): [string, string][] {
    return ENTRIES;
  }
}

/** The HTTPS listener's response: the same headers plus HSTS. */
export class HardenedTlsResponse<
  Req extends IncomingMessage = IncomingMessage,
> extends HardenedResponse<Req> {
  protected override hardeningHeaders(): [string, string][] {
    return TLS_ENTRIES;
  }
}

function mergeHeaders(
  given: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined,
  res: ServerResponse,
  entries: [string, string][],
): OutgoingHttpHeaders | OutgoingHttpHeader[] {
  if (Array.isArray(given)) {
    // Flat [name, value, name, value…] form.
    const names = new Set<string>();
    for (let i = 0; i < given.length; i += 2) names.add(String(given[i]).toLowerCase());
    const out = [...given];
    for (const [name, value] of entries) if (!names.has(name) && !res.hasHeader(name)) out.push(name, value);
    return out;
  }
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of entries) if (!res.hasHeader(name)) out[name] = value;
  if (given) {
    for (const name of Object.keys(given)) {
      const lower = name.toLowerCase();
      if (lower !== name && lower in out) delete out[lower];
      out[name] = given[name];
    }
  }
  return out;
}

/** Whether this request is answered through a HardenedResponse (serveApp's servers). */
export const isHardened = (c: Context): boolean =>
  (c.env as { outgoing?: unknown } | undefined)?.outgoing instanceof HardenedResponse;

/**
 * The same headers on a finished Response, for requests served elsewhere (app.request in tests).
 * A Response with immutable headers (one a proxy fetched) is copied first.
 */
export function withSecurityHeaders(res: Response): Response {
  const apply = (r: Response) => {
    for (const [name, value] of ENTRIES) if (!r.headers.has(name)) r.headers.set(name, value);
    return r;
  };
  try {
    return apply(res);
  } catch {
    return apply(new Response(res.body, res));
  }
}
