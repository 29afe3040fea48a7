import { createRoute, z } from '@hono/zod-openapi';
import { generator } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import type { ControllerService } from '../controller-service.js';
import { actorOf, auditor, errorResponses, router, sec } from './context.js';
import { body, json } from './openapi.js';

const tags = ['auth'];

export function authRoutes(svc: ControllerService) {
  const r = router();
  const audit = auditor(svc);

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/auth/login',
      tags,
      summary: 'Log in: a bearer token for the other routes',
      // The one operation without a token.
      security: [],
      request: body(generator.LoginRequest),
      responses: { 200: json(generator.LoginResponse), ...errorResponses([400, 401, 422, 429]) },
    }),
    async (c) => {
      const { username, password } = c.req.valid('json');
      const token = await svc.auth.login(username, password);
      const at = svc.clock.now();
      await svc.audit.write({
        at,
        who: username,
        from: c.get('clientIp'),
        action: token ? 'auth.login' : 'auth.login_failed',
      });
      if (!token) throw new HttpError(401, 'Invalid username or password', { 'WWW-Authenticate': 'Bearer' });
      return c.json(token, 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/auth/me',
      tags,
      responses: {
        200: json(
          z.object({
            username: z.string(),
            created_at: z.number().int().nullable(),
            token_expires_at: z.number().int(),
          }),
        ),
        ...errorResponses([401]),
      },
    }),
    async (c) => {
      const claims = c.get('auth')!;
      const user = await svc.auth.user(claims.username);
      return c.json(
        {
          username: claims.username,
          created_at: sec(user?.created_at),
          token_expires_at: Math.floor(claims.expiresAt / 1000),
        },
        200,
      );
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/auth/logout',
      tags,
      responses: { 200: json(generator.ActionResponse), ...errorResponses([401]) },
    }),
    async (c) => {
      await svc.auth.logout(c.get('auth')!);
      await audit(c, 'auth.logout');
      return c.json({ success: true, message: 'Token revoked' }, 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/auth/password',
      tags,
      summary: 'Change the password; every earlier token stops working',
      request: body(generator.PasswordChangeRequest),
      responses: { 200: json(generator.ActionResponse), ...errorResponses([400, 401, 422, 429]) },
    }),
    async (c) => {
      const { current_password, new_password } = c.req.valid('json');
      const a = actorOf(c);
      const ok = await svc.auth.changePassword(a.who, current_password, new_password);
      if (!ok) throw new HttpError(422, 'current_password: does not match');
      await audit(c, 'auth.password_changed');
      return c.json({ success: true, message: 'Password changed; log in again' }, 200);
    },
  );

  return r;
}
