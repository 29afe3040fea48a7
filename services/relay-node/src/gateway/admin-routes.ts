import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { relaynode } from '@outpost/contracts';
import { z } from 'zod';
import type { NodeAdmin } from '../admin.js';
import { authErrors, body, ErrorBody, json, security } from './openapi.js';

/** The administration the controller proxies under /api/relaynode/* (same paths here). */
const tags = ['administration'];
const Results = z.object({
  results: z.array(z.object({ url: z.string(), ok: z.boolean(), error: z.string().optional() })),
});

export function mountAdminRoutes(app: OpenAPIHono, admin: NodeAdmin): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/relaynode/reboot-schedule',
      tags,
      security,
      responses: { 200: json(relaynode.RebootSchedule), ...authErrors },
    }),
    (c) => c.json(admin.rebootSchedule(), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/relaynode/reboot-schedule',
      tags,
      security,
      summary: 'Set the reboot schedule (runs only while the relay is OFF)',
      request: body(relaynode.RebootSchedule),
      responses: { 200: json(relaynode.RebootSchedule), ...authErrors },
    }),
    (c) => c.json(admin.setRebootSchedule(c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/relaynode/notifications',
      tags,
      security,
      responses: { 200: json(relaynode.RelaynodeNotificationsStatus), ...authErrors },
    }),
    (c) => c.json(admin.notificationsStatus(), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/relaynode/notifications',
      tags,
      security,
      summary: 'Set the notifier URLs the node uses for Failsafe Triggered / Heartbeat Restored',
      request: body(relaynode.RelaynodeNotificationsRequest),
      responses: { 200: json(relaynode.RelaynodeNotificationsStatus), 422: json(ErrorBody), ...authErrors },
    }),
    (c) => c.json(admin.setNotifierUrls(c.req.valid('json').notifier_urls), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/relaynode/notifications/settings',
      tags,
      security,
      summary: 'Set the notification cooldowns',
      request: body(relaynode.RelaynodeNotificationSettings),
      responses: { 200: json(relaynode.RelaynodeNotificationsStatus), ...authErrors },
    }),
    (c) => c.json(admin.setCooldowns(c.req.valid('json')), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/relaynode/notifications/test',
      tags,
      security,
      summary: 'Send a test notification to every notifier URL',
      responses: { 200: json(Results), 409: json(ErrorBody, 'No notifier URLs configured'), ...authErrors },
    }),
    async (c) => c.json(await admin.testNotifications(), 200),
  );
}
