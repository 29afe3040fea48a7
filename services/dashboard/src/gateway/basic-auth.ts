import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { basicAuth } from 'hono/basic-auth';
import { HTTPException } from 'hono/http-exception';
import { auth } from 'hono/utils/basic-auth';

export interface Credentials {
  username: string;
  password: string;
}

const REALM = 'Outpost fleet dashboard';
/** The challenge of a 401, the same on HTTP (Hono's middleware writes it) and the WebSocket upgrade. */
export const AUTH_CHALLENGE = `Basic realm="${REALM}"`;

/**
 * DASHBOARD_AUTH through Hono's basic-auth middleware, shaped as the app's guard: undefined lets the
 * request on, otherwise the middleware's 401 with its challenge and a `{detail}` body.
 */
export function basicAuthGuard(creds: Credentials): (c: Context) => Promise<Response | undefined> {
  const check = basicAuth({
    username: creds.username,
    password: creds.password,
    realm: REALM,
    invalidUserMessage: { detail: 'Authentication required' },
  });
  return async (c) => {
    try {
      await check(c, async () => undefined);
      return undefined;
    } catch (err) {
      if (err instanceof HTTPException) return err.getResponse();
      throw err;
    }
  };
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * The same check for a WebSocket upgrade, which reaches the server before any Hono handler: Hono's
 * header parser, then digests compared in constant time, so neither the length nor the content of
 * the secret leaks through timing.
 */
export function basicAuthOk(header: string | undefined | null, creds: Credentials): boolean {
  if (!header) return false;
  let given: { username: string; password: string } | undefined;
  try {
    given = auth({ headers: new Headers({ authorization: header }) } as unknown as Request);
  } catch {
    return false; // a value Headers refuses is no credential either
  }
  if (!given) return false;
  const userOk = timingSafeEqual(digest(given.username), digest(creds.username));
  const passOk = timingSafeEqual(digest(given.password), digest(creds.password));
  return userOk && passOk;
}
