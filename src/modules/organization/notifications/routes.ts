import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { listNotificationsQuery, markReadBody, markReadResult, notificationList } from './schemas';
import { listNotifications, markNotificationsRead } from './service';

const tags = ['Notifications'];

const list = defineRoute(
  { auth: 'key', scope: 'read' },
  {
    method: 'get',
    path: '/api/v1/notifications',
    operationId: 'listNotifications',
    tags,
    summary: "The clinic's notifications (one page, newest first) with the unread count and the total",
    request: { query: listNotificationsQuery },
    responses: { 200: jsonContent(successBody(notificationList), 'Notifications') },
  },
);

const markRead = defineRoute(
  { auth: 'key', scope: 'write' },
  {
    method: 'post',
    path: '/api/v1/notifications/read',
    operationId: 'markNotificationsRead',
    tags,
    summary: 'Mark notifications read',
    description:
      "Only the clinic's own unread notifications change; ids of another clinic, unknown ids and already-read ones are skipped silently " +
      'and not counted in data.updated. A malformed id is a 400. docs/notifications.md.',
    request: { body: jsonBody(markReadBody) },
    responses: { 200: jsonContent(successBody(markReadResult), 'data.updated: how many were marked read now') },
  },
);

export const notificationRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    return c.json(ok(await listNotifications(handlerContext(c), c.req.valid('query'))), 200);
  })
  .openapi(markRead, async (c) => {
    const result = await markNotificationsRead(handlerContext(c), c.req.valid('json').ids);
    return c.json(ok(result, `${result.updated} notification(s) marked read`), 200);
  });
