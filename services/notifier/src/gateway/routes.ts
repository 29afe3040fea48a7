import { createRoute, z } from '@hono/zod-openapi';
import { ErrorBody, NotificationEvent, notifier } from '@outpost/contracts';
import { HttpError, type OutpostApp } from '@outpost/runtime';
import type { NotifierService } from '../domain/service.js';
import { NotifierError, type NotifierRepo } from '../domain/types.js';

const json = <S extends z.ZodType>(schema: S, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
const body = <S extends z.ZodType>(schema: S) => ({
  body: { content: { 'application/json': { schema } }, required: true },
});
const errors = {
  401: json(ErrorBody, 'Missing or invalid bearer token'),
  422: json(ErrorBody, 'Invalid input; detail names each field'),
};
const notFound = { 404: json(ErrorBody, 'Not found') };

const ChannelId = z.object({ channel_id: z.coerce.number().int().positive().max(2_147_483_647) });
const GroupId = z.object({ group_id: z.coerce.number().int().positive().max(2_147_483_647) });
const EventParam = z.object({ event: NotificationEvent });

/** Domain refusals as HTTP. */
async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof NotifierError) throw new HttpError(err.kind === 'not_found' ? 404 : 422, err.detail);
    throw err;
  }
}

const toHistory = (
  d: Awaited<ReturnType<NotifierRepo['listDeliveries']>>[number],
): notifier.NotificationHistoryRecord => ({
  ...d,
  created_at: new Date(d.created_at).toISOString(),
});

export function mountRoutes(app: OutpostApp, service: NotifierService, repo: NotifierRepo): void {
  const tags = ['notifications'];

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/notifications/channels',
      tags,
      summary: 'List channels (secrets masked)',
      responses: { 200: json(z.array(notifier.Channel), 'Channels'), ...errors },
    }),
    async (c) => c.json(await service.listChannels(), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/notifications/channels',
      tags,
      summary: 'Create a channel',
      request: body(notifier.ChannelInput),
      responses: { 201: json(notifier.ChannelCreated, 'Created'), ...errors },
    }),
    async (c) => c.json(await run(() => service.createChannel(c.req.valid('json'))), 201),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/notifications/channels/{channel_id}',
      tags,
      summary: 'One channel',
      request: { params: ChannelId },
      responses: { 200: json(notifier.Channel, 'Channel'), ...notFound, ...errors },
    }),
    async (c) => c.json(await run(() => service.getChannel(c.req.valid('param').channel_id)), 200),
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: '/api/notifications/channels/{channel_id}',
      tags,
      summary: 'Replace a channel; omitted or masked secrets keep their stored value',
      request: { params: ChannelId, ...body(notifier.ChannelUpdate) },
      responses: { 200: json(notifier.Channel, 'Updated'), ...notFound, ...errors },
    }),
    async (c) =>
      c.json(
        await run(() => service.updateChannel(c.req.valid('param').channel_id, c.req.valid('json'))),
        200,
      ),
  );
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/notifications/channels/{channel_id}',
      tags,
      summary: 'Delete a channel (also removed from groups and event settings)',
      request: { params: ChannelId },
      responses: { 204: { description: 'Deleted' }, ...notFound, ...errors },
    }),
    async (c) => {
      await run(() => service.deleteChannel(c.req.valid('param').channel_id));
      return c.body(null, 204);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/notifications/channels/{channel_id}/test',
      tags,
      summary: 'Send a test message (one attempt, recorded in the history)',
      request: { params: ChannelId },
      responses: { 200: json(notifier.SendNotificationResponse, 'Outcome'), ...notFound, ...errors },
    }),
    async (c) => c.json(await run(() => service.testChannel(c.req.valid('param').channel_id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/notifications/groups',
      tags,
      summary: 'List groups',
      responses: { 200: json(z.array(notifier.Group), 'Groups'), ...errors },
    }),
    async (c) => c.json(await service.listGroups(), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/notifications/groups',
      tags,
      summary: 'Create a group',
      request: body(notifier.GroupInput),
      responses: { 201: json(notifier.Group, 'Created'), ...errors },
    }),
    async (c) => c.json(await run(() => service.createGroup(c.req.valid('json'))), 201),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/notifications/groups/{group_id}',
      tags,
      summary: 'One group',
      request: { params: GroupId },
      responses: { 200: json(notifier.Group, 'Group'), ...notFound, ...errors },
    }),
    async (c) => c.json(await run(() => service.getGroup(c.req.valid('param').group_id)), 200),
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: '/api/notifications/groups/{group_id}',
      tags,
      summary: 'Replace a group',
      request: { params: GroupId, ...body(notifier.GroupInput) },
      responses: { 200: json(notifier.Group, 'Updated'), ...notFound, ...errors },
    }),
    async (c) =>
      c.json(await run(() => service.updateGroup(c.req.valid('param').group_id, c.req.valid('json'))), 200),
  );
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/notifications/groups/{group_id}',
      tags,
      summary: 'Delete a group',
      request: { params: GroupId },
      responses: { 204: { description: 'Deleted' }, ...notFound, ...errors },
    }),
    async (c) => {
      await run(() => service.deleteGroup(c.req.valid('param').group_id));
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/notifications/send',
      tags,
      summary: 'Send a message to channels now (first attempt awaited, retries continue)',
      request: body(notifier.SendNotificationRequest),
      responses: { 200: json(notifier.SendNotificationResponse, 'Outcome per channel'), ...errors },
    }),
    async (c) => c.json(await run(() => service.send(c.req.valid('json'))), 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/notifications/history',
      tags,
      summary: 'Delivery attempts, newest first',
      request: { query: notifier.NotificationHistoryQuery },
      responses: { 200: json(z.array(notifier.NotificationHistoryRecord), 'Attempts'), ...errors },
    }),
    async (c) => c.json((await repo.listDeliveries(c.req.valid('query').limit)).map(toHistory), 200),
  );

  const sys = ['system-notifications'];
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/system-notifications',
      tags: sys,
      summary: 'Every event setting (defaults where not configured)',
      responses: { 200: json(z.array(notifier.SystemNotificationSettingOut), 'Settings'), ...errors },
    }),
    async (c) => c.json(await service.listSettings(), 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/system-notifications/{event}',
      tags: sys,
      summary: 'One event setting',
      request: { params: EventParam },
      responses: { 200: json(notifier.SystemNotificationSettingOut, 'Setting'), ...errors },
    }),
    async (c) => c.json(await service.getSetting(c.req.valid('param').event), 200),
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: '/api/system-notifications/{event}',
      tags: sys,
      summary: 'Configure an event: channels, groups and {{variable}} templates',
      request: { params: EventParam, ...body(notifier.SystemNotificationSetting) },
      responses: { 200: json(notifier.SystemNotificationSettingOut, 'Saved'), ...errors },
    }),
    async (c) =>
      c.json(await run(() => service.putSetting(c.req.valid('param').event, c.req.valid('json'))), 200),
  );
}
