import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { generator } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import type { DeliveryRow, WebhookRow } from '../db/outbox-store.js';
import { postWebhook } from '../outbox/webhook-client.js';
import type { ControllerService } from '../controller-service.js';
import type { Actor } from '../domain/types.js';
import { actorOf, auditor, errorResponses, router, sec } from './context.js';
import { IdParam, itemRoutes, body, json } from './openapi.js';

const tags = ['webhooks'];

const Delivery = z.object({
  id: z.number().int(),
  event: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  next_attempt_at: z.number().int().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  delivered_at: z.number().int().nullable(),
  created_at: z.number().int(),
});

export const webhookView = (row: WebhookRow, withSecret = false) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  enabled: row.enabled,
  created_at: Math.floor(row.created_at / 1000),
  ...(withSecret ? { secret: row.secret } : {}),
});

const deliveryView = (d: DeliveryRow) => ({
  id: d.id,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: sec(d.next_attempt_at),
  last_status_code: d.last_status_code,
  last_error: d.last_error,
  delivered_at: sec(d.delivered_at),
  created_at: Math.floor(d.created_at / 1000),
});

const WebhookTestResult = z.object({
  sent: z.number().int(),
  results: z.array(
    z.object({
      webhook_id: z.number().int(),
      url: z.string(),
      ok: z.boolean(),
      status: z.number().int().nullable(),
      error: z.string().nullable(),
    }),
  ),
});

export const webhookTestRoute = (path: string) =>
  createRoute({
    method: 'post',
    path,
    tags,
    summary: 'Sends a signed webhook.test event to every enabled webhook now',
    responses: { 200: json(WebhookTestResult), ...errorResponses([401, 409, 422]) },
  });

/**
 * A URL the outbound policy refuses is refused when it is set or tested, with a 422 naming the
 * address and OUTBOUND_ALLOWED_NETWORKS, rather than stored and then never delivered.
 */
async function assertReachable(svc: ControllerService, url: string, field = 'url'): Promise<void> {
  const why = await svc.outboundRefusal(url);
  if (why) throw new HttpError(422, `${field}: ${why}`);
}

/** One signed webhook.test to each enabled webhook, the outcome of each, and an audit entry. */
export async function sendWebhookTest(
  svc: ControllerService,
  actor: Actor,
  auditAction: string,
): Promise<z.infer<typeof WebhookTestResult>> {
  const hooks = await svc.outbox.enabledWebhooks();
  if (hooks.length === 0)
    throw new HttpError(409, 'No enabled webhook to test; create one with POST /api/webhooks');
  for (const h of hooks) await assertReachable(svc, h.url, `webhook ${h.id} (${h.url})`);
  const timestamp = Math.floor(svc.clock.now() / 1000);
  const results = await Promise.all(
    hooks.map(async (h) => {
      const res = await postWebhook(
        h.url,
        h.secret,
        {
          event: 'webhook.test',
          timestamp,
          data: { message: 'Outpost webhook test', requested_by: actor.who },
        },
        { outbound: svc.outbound },
      );
      return { webhook_id: h.id, url: h.url, ok: res.ok, status: res.status, error: res.error };
    }),
  );
  await svc.audit.write({
    at: svc.clock.now(),
    who: actor.who,
    from: actor.from,
    action: auditAction,
    details: { results },
  });
  return { sent: results.length, results };
}

export function webhookRoutes(svc: ControllerService) {
  const r = router();
  const audit = auditor(svc);
  const item = itemRoutes('/api/webhooks', tags, generator.Webhook, generator.WebhookUpdate);

  r.openapi(webhookTestRoute('/api/webhooks/test'), async (c) =>
    c.json(await sendWebhookTest(svc, actorOf(c), 'webhook.test'), 200),
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/webhooks',
      tags,
      responses: { 200: json(z.array(generator.Webhook)), ...errorResponses([401]) },
    }),
    async (c) =>
      c.json(
        (await svc.outbox.listWebhooks()).map((w) => webhookView(w)),
        200,
      ),
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/webhooks',
      tags,
      summary:
        'POSTs {event, timestamp, data} signed with X-Outpost-Signature: sha256=<HMAC of the body>; without a secret one is generated and shown once',
      request: body(generator.WebhookInput),
      responses: { 201: json(generator.Webhook), ...errorResponses([400, 401, 422]) },
    }),
    async (c) => {
      const input = c.req.valid('json');
      await assertReachable(svc, input.url);
      const generated = input.secret === undefined;
      const row = await svc.outbox.createWebhook(
        {
          url: input.url,
          secret: input.secret ?? randomBytes(24).toString('base64url'),
          events: input.events,
          enabled: input.enabled,
        },
        svc.clock.now(),
      );
      await audit(c, 'webhook.create', { id: row.id, url: row.url, events: row.events });
      return c.json(webhookView(row, generated), 201);
    },
  );

  r.openapi(item.get, async (c) => {
    const row = await svc.outbox.getWebhook(c.req.valid('param').id);
    if (!row) throw new HttpError(404, 'Webhook not found');
    return c.json(webhookView(row), 200);
  });

  r.openapi(item.put, async (c) => {
    const { id } = c.req.valid('param');
    const patch = c.req.valid('json');
    if (patch.url !== undefined) await assertReachable(svc, patch.url);
    else if (patch.enabled === true) {
      const stored = await svc.outbox.getWebhook(id);
      if (stored) await assertReachable(svc, stored.url);
    }
    const row = await svc.outbox.updateWebhook(id, patch, svc.clock.now());
    if (!row) throw new HttpError(404, 'Webhook not found');
    await audit(c, 'webhook.update', {
      id,
      url: patch.url,
      events: patch.events,
      enabled: patch.enabled,
      secret_changed: patch.secret !== undefined,
    });
    return c.json(webhookView(row), 200);
  });

  r.openapi(item.delete, async (c) => {
    const { id } = c.req.valid('param');
    if (!(await svc.outbox.deleteWebhook(id))) throw new HttpError(404, 'Webhook not found');
    await audit(c, 'webhook.delete', { id });
    return c.json({ success: true, message: 'Webhook deleted' }, 200);
  });

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/webhooks/{id}/deliveries',
      tags,
      request: {
        params: IdParam,
        query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) }),
      },
      responses: { 200: json(z.array(Delivery)), ...errorResponses([401, 404, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      if (!(await svc.outbox.getWebhook(id))) throw new HttpError(404, 'Webhook not found');
      return c.json((await svc.outbox.deliveries(id, c.req.valid('query').limit)).map(deliveryView), 200);
    },
  );

  return r;
}
