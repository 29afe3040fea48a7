import { notifier } from '@outpost/contracts';
import { SignJWT } from 'jose';
import type { Logger } from 'pino';

export interface NotifierProxyOptions {
  /** NOTIFIER_URL, e.g. http://127.0.0.1:8002 */
  url: string;
  /** NOTIFIER_API_SECRET, held by the controller and the notifier only (HS256). */
  apiSecret: string;
  timeoutMs?: number;
  /** Largest forwarded body in bytes. */
  bodyLimit?: number;
  logger: Logger;
}

/** Request headers passed through to the notifier (hop-by-hop and credentials are not). */
const PASS_REQUEST = ['content-type', 'accept'];
const PASS_RESPONSE = ['content-type', 'retry-after', 'location', 'allow'];
/**
 * The methods fetch can forward. Others (TRACE, CONNECT...) no client library may send, so the
 * notifier is asked with OPTIONS, which it answers like any method it has no route for: 405 with
 * its Allow header (or 404 for a path it does not have).
 */
const FORWARDED = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export const isNotifierPath = (path: string): boolean =>
  /^\/api\/(notifications|system-notifications)(\/|$)/.test(path);

/**
 * Forwards /api/notifications/* and /api/system-notifications/* (after the controller's own auth)
 * to the notifier, which owns them. The caller's token is not passed on: the notifier gets a
 * 60-second service token for the same user, signed with the key only these two share. Bounded: no
 * answer in time is 504, no notifier is 502.
 */
export function notifierProxy(opts: NotifierProxyOptions) {
  const key = new TextEncoder().encode(opts.apiSecret);
  const { issuer, audience, lifetimeSeconds } = notifier.SERVICE_TOKEN;
  const base = opts.url.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const limit = opts.bodyLimit ?? 64 * 1024;
  const json = (status: number, detail: string) =>
    new Response(JSON.stringify({ detail }), { status, headers: { 'content-type': 'application/json' } });

  return async (req: Request, username: string): Promise<Response> => {
    const src = new URL(req.url);
    const headers = new Headers();
    for (const name of PASS_REQUEST) {
      const v = req.headers.get(name);
      if (v) headers.set(name, v);
    }
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(username)
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${lifetimeSeconds}s`)
      .sign(key);
    headers.set('authorization', `Bearer ${token}`);
    const method = FORWARDED.has(req.method) ? req.method : 'OPTIONS';
    let body: Uint8Array | undefined;
    if (method !== req.method) body = undefined;
    else if (req.method !== 'GET' && req.method !== 'HEAD') {
      const read = await readBounded(req, limit);
      if (read === null) return json(413, `Request body larger than ${limit} bytes`);
      body = read;
    }
    let res: Response;
    try {
      res = await fetch(`${base}${src.pathname}${src.search}`, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      });
    } catch (err) {
      const e = err as Error;
      if (e.name === 'TimeoutError') {
        opts.logger.warn({ path: src.pathname, timeoutMs }, 'notifier did not answer in time');
        return json(504, `The notifier did not answer within ${timeoutMs / 1000} s`);
      }
      opts.logger.warn({ path: src.pathname, err: e.message }, 'notifier unreachable');
      return json(502, 'The notifier is unavailable');
    }
    // Asked with OPTIONS in the client's stead: the answer is told in the client's method, as the
    // controller's own routes tell it (runtime app.ts, notFound), never the OPTIONS it did not send.
    if (method !== req.method && res.status === 405) {
      await res.body?.cancel();
      const allow = res.headers.get('allow') ?? '';
      return new Response(JSON.stringify({ detail: `Method ${req.method} not allowed on ${src.pathname}` }), {
        status: 405,
        headers: { 'content-type': 'application/json', allow },
      });
    }
    if (method !== req.method && res.status === 404) {
      await res.body?.cancel();
      return json(404, `Not found: ${req.method} ${src.pathname}`);
    }
    const out = new Headers();
    for (const name of PASS_RESPONSE) {
      const v = res.headers.get(name);
      if (v) out.set(name, v);
    }
    let payload: ArrayBuffer;
    try {
      payload = await res.arrayBuffer();
    } catch {
      return json(502, 'The notifier closed the connection mid-answer');
    }
    return new Response(res.status === 204 ? null : payload, { status: res.status, headers: out });
  };
}

export type NotifierProxy = ReturnType<typeof notifierProxy>;

/**
 * The body, or null as soon as it is known to pass `limit`: from its Content-Length before a byte is
 * read, else while it streams in. Reading it whole first would let one client hold the controller's
 * memory (or a connection, with a body that never ends) before any size check.
 */
async function readBounded(req: Request, limit: number): Promise<Uint8Array | null> {
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) return null;
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
