import type { Context, Next } from 'hono';
import { isStreamed } from './node-body.js';

export const NUL_DETAIL = 'Text must not contain the NUL character (U+0000)';

function hasNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (Array.isArray(v)) return v.some(hasNul);
  if (v !== null && typeof v === 'object')
    return Object.entries(v).some(([k, x]) => k.includes('\u0000') || hasNul(x));
  return false;
}

/**
 * A NUL character (U+0000) anywhere in the URL or a JSON body is refused with 422 before any route:
 * PostgreSQL cannot store it in text, and a value accepted now and refused by a later, deferred write
 * (a run's notes, an outbox event) would fail where no client can see it.
 */
export const refuseNul =
  (body: (detail: string) => Record<string, unknown> = (detail) => ({ detail })) =>
  async (c: Context, next: Next): Promise<Response | undefined> => {
    if (/%00/.test(c.req.url)) return c.json(body(NUL_DETAIL), 422);
    // A GET or HEAD has no body to look into: its headers are not even read (on Node, asking Hono
    // for one builds the request's web Headers). A streamed body (a file upload, up to megabytes) is
    // its route's to read as it arrives: decoding it here whole would hold the event loop, and its
    // route stores no text in PostgreSQL.
    const method = c.req.method;
    if (
      method !== 'GET' &&
      method !== 'HEAD' &&
      (c.req.header('content-type') ?? '').includes('json') &&
      !isStreamed(c)
    ) {
      const text = await c.req.text();
      if (/\\u0000/i.test(text)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (hasNul(parsed)) return c.json(body(NUL_DETAIL), 422);
      }
    }
    await next();
    return undefined;
  };
