import { createRoute, z } from '@hono/zod-openapi';
import { relaynode } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import { type RelaynodeAdmin, RelaynodeAdminError } from '../bus/relaynode-admin.js';
import type { DomainLogger } from '../domain/types.js';
import { actorOf, errorResponses, router } from './context.js';
import { body, json } from './openapi.js';

const tags = ['relaynode'];
const Answer = z.unknown().openapi({ description: "The relay node's answer" });
const ok = { 200: json(Answer) };
const errors = {
  ...errorResponses([400, 401, 422]),
  502: { description: 'The relay node refused the request' },
  503: { description: 'The MQTT broker is unavailable' },
  504: { description: 'The relay node did not answer in time' },
};

type Verb = relaynode.RelaynodeRequestVerb;
interface Endpoint {
  method: 'get' | 'post';
  path: string;
  verb: Verb;
  summary: string;
  schema?: z.ZodType;
}

const ENDPOINTS: Endpoint[] = [
  {
    method: 'post',
    path: '/api/relaynode/reboot-schedule',
    verb: 'reboot-schedule',
    summary: 'Set the relay node reboot schedule',
    schema: relaynode.RebootSchedule,
  },
  {
    method: 'get',
    path: '/api/relaynode/reboot-schedule',
    verb: 'get-reboot-schedule',
    summary: 'Read the relay node reboot schedule',
  },
  {
    method: 'post',
    path: '/api/relaynode/notifications',
    verb: 'notifications',
    summary: 'Set the notifier URLs of the relay node',
    schema: relaynode.RelaynodeNotificationsRequest,
  },
  {
    method: 'get',
    path: '/api/relaynode/notifications',
    verb: 'get-notifications',
    summary: 'Read the relay node notification settings (URLs redacted)',
  },
  {
    method: 'post',
    path: '/api/relaynode/notifications/settings',
    verb: 'notifications-settings',
    summary: 'Set the failsafe and restored notification cooldowns',
    schema: relaynode.RelaynodeNotificationSettings,
  },
  {
    method: 'post',
    path: '/api/relaynode/notifications/test',
    verb: 'notifications-test',
    summary: 'Send a test notification from the relay node',
  },
  {
    method: 'get',
    path: '/api/relaynode/status',
    verb: 'status',
    summary: 'Relay, failsafe and state of the relay node',
  },
  {
    method: 'get',
    path: '/api/relaynode/system',
    verb: 'system',
    summary: 'CPU, RAM, disk, network of the relay node',
  },
];

/** Mock hardware only, beside the controller's own /api/dev/*: the relay node's EPO contact. */
export const DEV_ENDPOINTS: Endpoint[] = [
  {
    method: 'post',
    path: '/api/dev/relaynode/epo',
    verb: 'dev-epo',
    summary: "Press (engaged: true) or release the relay node's mock EPO contact",
    schema: relaynode.DevEpoRequest,
  },
];

/**
 * Relay node administration proxied over MQTT request/response. Bodies are validated here (422 naming
 * each field) before anything is sent; the node validates again.
 */
export function relaynodeRoutes(admin: RelaynodeAdmin, logger: DomainLogger, endpoints = ENDPOINTS) {
  const r = router();
  for (const ep of endpoints) {
    const route = createRoute({
      method: ep.method,
      path: ep.path,
      tags,
      summary: ep.summary,
      ...(ep.schema ? { request: body(ep.schema) } : {}),
      responses: { ...ok, ...errors },
    });
    r.openapi(route, async (c) => {
      const data = ep.schema ? (c.req.valid('json' as never) as unknown) : undefined;
      try {
        const answer = await admin.call(ep.verb, data);
        if (ep.method === 'post') {
          logger.info({ verb: ep.verb, ...actorOf(c) }, 'relay node administration');
        }
        return c.json(answer as never, 200);
      } catch (err) {
        if (err instanceof RelaynodeAdminError) throw new HttpError(err.status, err.message);
        throw err;
      }
    });
  }
  return r;
}
