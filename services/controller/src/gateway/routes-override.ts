import { createRoute } from '@hono/zod-openapi';
import { generator } from '@outpost/contracts';
import type { ControllerService } from '../controller-service.js';
import { actorOf, domain, errorResponses, router, sec } from './context.js';
import { body, json } from './openapi.js';

const tags = ['override'];

export function overrideRoutes(svc: ControllerService) {
  const r = router();
  const ctl = svc.controller;
  const status = () => {
    const s = ctl.persisted;
    return {
      active: s.override_type !== null,
      override_type: s.override_type,
      since: sec(s.override_since),
      quiet_override_active: s.quiet_override_active,
      quiet_override_expires_at: sec(s.quiet_override_expires_at),
      hoa_position: ctl.hoaPosition,
    };
  };

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/override/status',
      tags,
      responses: { 200: json(generator.OverrideStatus), ...errorResponses([401]) },
    }),
    (c) => c.json(status(), 200),
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/override/enable',
      tags,
      summary:
        'force_run ignores the inactive input signal; force_stop blocks automatic starts (and stops a run)',
      request: body(generator.OverrideEnableRequest),
      responses: { 200: json(generator.OverrideStatus), ...errorResponses([400, 401, 422, 503]) },
    }),
    async (c) => {
      await domain(() => ctl.enableOverride(c.req.valid('json').override_type, actorOf(c)));
      return c.json(status(), 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/override/disable',
      tags,
      responses: { 200: json(generator.OverrideStatus), ...errorResponses([401, 503]) },
    }),
    async (c) => {
      await domain(() => ctl.disableOverride(actorOf(c)));
      return c.json(status(), 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/override/quiet',
      tags,
      summary: 'Timed Quiet override: automation may start although the HOA selector is at Quiet',
      request: body(generator.QuietOverrideRequest),
      responses: { 200: json(generator.OverrideStatus), ...errorResponses([400, 401, 409, 422, 503]) },
    }),
    async (c) => {
      await domain(() => ctl.enableQuietOverride(c.req.valid('json').minutes, actorOf(c)));
      return c.json(status(), 200);
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/override/quiet/cancel',
      tags,
      responses: { 200: json(generator.OverrideStatus), ...errorResponses([401]) },
    }),
    async (c) => {
      await domain(() => ctl.cancelQuietOverride(actorOf(c)));
      return c.json(status(), 200);
    },
  );

  return r;
}
