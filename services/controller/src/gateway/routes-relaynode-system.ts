import { createRoute, type z } from '@hono/zod-openapi';
import { relaynode, relaynodeSystem } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import { type RelaynodeAdmin, RelaynodeAdminError } from '../bus/relaynode-admin.js';
import type { ControllerService } from '../controller-service.js';
import { auditor, errorResponses, router } from './context.js';
import { body, json } from './openapi.js';

const tags = ['relaynode'];
const upstream = {
  502: { description: 'The relay node failed the request' },
  503: { description: 'The MQTT broker, or NetworkManager on the relay node, is unavailable' },
  504: { description: 'The relay node did not answer in time' },
};

type Verb = relaynodeSystem.RelaynodeSystemVerb;
interface Operation {
  method: 'get' | 'post';
  path: string;
  verb: Verb;
  summary: string;
  request?: z.ZodType;
  answer: z.ZodType;
  /** 4xx the relay node itself may answer, besides the controller's own 400/401/422. */
  refusals?: number[];
  /** Audit details from the validated body: never the password. */
  audit?: (req: Record<string, unknown>) => Record<string, unknown>;
}

const ssidOnly = (req: Record<string, unknown>) => ({ ssid: req.ssid });

const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/relaynode/wifi',
    verb: 'wifi-list',
    summary: 'WiFi networks saved on the relay node, and which one it is connected through',
    answer: relaynodeSystem.WifiSavedList,
  },
  {
    method: 'get',
    path: '/api/relaynode/wifi/scan',
    verb: 'wifi-scan',
    summary: 'Scan for WiFi networks from the relay node (strongest first, signal 0-100)',
    answer: relaynodeSystem.WifiScanResult,
  },
  {
    method: 'post',
    path: '/api/relaynode/wifi/add',
    verb: 'wifi-add',
    summary: 'Pre-configure a WiFi network on the relay node (the password is never returned)',
    request: relaynode.WifiAddRequest,
    answer: relaynodeSystem.WifiActionResult,
    audit: (req) => ({ ssid: req.ssid, auto_connect: req.auto_connect }),
  },
  {
    method: 'post',
    path: '/api/relaynode/wifi/connect',
    verb: 'wifi-connect',
    summary: 'Connect the relay node to a visible WiFi network now (the password is never returned)',
    request: relaynode.WifiConnectRequest,
    answer: relaynodeSystem.WifiActionResult,
    refusals: [404],
    audit: ssidOnly,
  },
  {
    method: 'post',
    path: '/api/relaynode/wifi/forget',
    verb: 'wifi-forget',
    summary: 'Delete every saved profile of a WiFi network on the relay node',
    request: relaynodeSystem.WifiForgetRequest,
    answer: relaynodeSystem.WifiForgetResult,
    refusals: [404],
    audit: ssidOnly,
  },
  {
    method: 'post',
    path: '/api/relaynode/reboot',
    verb: 'reboot',
    summary: 'Reboot the relay node (body {"confirm": true}; refused with 409 while the relay is ON)',
    request: relaynode.PowerRequest,
    answer: relaynodeSystem.PowerResult,
    refusals: [409],
    audit: () => ({}),
  },
  {
    method: 'post',
    path: '/api/relaynode/shutdown',
    verb: 'shutdown',
    summary: 'Shut the relay node down (body {"confirm": true}; refused with 409 while the relay is ON)',
    request: relaynode.PowerRequest,
    answer: relaynodeSystem.PowerResult,
    refusals: [409],
    audit: () => ({}),
  },
];

/**
 * Relay node WiFi and power administration through the controller, over the same MQTT
 * request/response as the other /api/relaynode routes. Bodies are validated before anything is sent;
 * answers are parsed with their contract schema, so nothing beyond its fields (a password) reaches
 * the client. Accepted changes are audited with the SSID, never the password.
 */
export function relaynodeSystemRoutes(svc: ControllerService, admin: RelaynodeAdmin) {
  const r = router();
  const audit = auditor(svc);
  for (const op of OPERATIONS) {
    const route = createRoute({
      method: op.method,
      path: op.path,
      tags,
      summary: op.summary,
      ...(op.request ? { request: body(op.request) } : {}),
      responses: {
        200: json(op.answer),
        ...errorResponses([...(op.request ? [400] : []), 401, 403, ...(op.refusals ?? []), 422, 429]),
        ...upstream,
      },
    });
    r.openapi(route, async (c) => {
      const data = op.request ? (c.req.valid('json' as never) as Record<string, unknown>) : undefined;
      let answer: unknown;
      try {
        answer = await admin.call(op.verb, data);
      } catch (err) {
        if (err instanceof RelaynodeAdminError) throw new HttpError(err.status, err.message);
        throw err;
      }
      const parsed = op.answer.safeParse(answer);
      if (!parsed.success) throw new HttpError(502, 'The relay node gave an answer of the wrong shape');
      if (op.audit && data) {
        const action = `relaynode.${op.verb.replace('-', '_')}`;
        // The node has already acted: a database outage must not turn that into an error.
        await audit(c, action, op.audit(data)).catch((err: unknown) =>
          svc.logger.error({ err, action }, 'audit entry not written'),
        );
      }
      return c.json(parsed.data as never, 200);
    });
  }
  return r;
}
