import type { OpenAPIHono } from '@hono/zod-openapi';
import { simulator } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import { deleteCookie, setCookie } from 'hono/cookie';
import {
  clientAddress,
  type LoginLimiter,
  SESSION_COOKIE,
  type SessionStore,
  safeEqual,
  sessionToken,
} from './auth.js';
import { input, jsonRoute } from './openapi.js';

export interface AuthDeps {
  sessions: SessionStore;
  limiter: LoginLimiter;
  username: string;
  password: string;
  bypassAuth: boolean;
}

const tags = ['auth'];

/** The request came over TLS: the node server names its URL https when the socket is encrypted. */
const overHttps = (url: string) => url.startsWith('https:');

export function authRoutes(app: OpenAPIHono, deps: AuthDeps): void {
  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/auth/login',
      summary: 'Start a cookie session (gps_session)',
      tags,
      body: simulator.LoginRequest,
      response: simulator.AuthStatus,
      errors: { 429: 'Too many failed logins from this address; see Retry-After' },
    },
    async (c) => {
      const client = clientAddress(c);
      const wait = await deps.limiter.retryAfter(client);
      if (wait > 0) {
        throw new HttpError(429, `Too many failed login attempts; try again in ${wait} s`, {
          'Retry-After': String(wait),
        });
      }
      const body = input<{ username: string; password: string }>(c, 'json');
      // Both comparisons always run, so timing does not reveal which one failed.
      const userOk = safeEqual(body.username, deps.username);
      const passOk = safeEqual(body.password, deps.password);
      if (!userOk || !passOk) {
        await deps.limiter.fail(client);
        throw new HttpError(401, 'Invalid username or password');
      }
      await deps.limiter.succeed(client);
      deps.sessions.destroy(sessionToken(c));
      const token = deps.sessions.create(deps.username);
      // No Max-Age/Expires: the session ends when the browser closes. Secure whenever this listener
      // speaks HTTPS, so the browser never sends the session over plain HTTP.
      setCookie(c, SESSION_COOKIE, token, {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        secure: overHttps(c.req.url),
      });
      return c.json({ authenticated: true, username: deps.username, bypass_auth: deps.bypassAuth }, 200);
    },
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/auth/logout',
      summary: 'End the session',
      tags,
      response: simulator.AuthStatus,
    },
    (c) => {
      deps.sessions.destroy(sessionToken(c));
      deleteCookie(c, SESSION_COOKIE, { path: '/', secure: overHttps(c.req.url) });
      return c.json({ authenticated: false, username: null, bypass_auth: deps.bypassAuth }, 200);
    },
  );

  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/auth/check',
      summary: 'Session status: answers 200 with or without a session',
      tags,
      response: simulator.AuthStatus,
    },
    (c) => {
      if (deps.bypassAuth) return c.json({ authenticated: true, username: null, bypass_auth: true }, 200);
      const username = deps.sessions.touch(sessionToken(c));
      return c.json({ authenticated: username !== null, username, bypass_auth: false }, 200);
    },
  );
}
