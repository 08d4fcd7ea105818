import { z } from '@hono/zod-openapi';
import { pageQuery } from '../../../platform/http/pagination';

export const MAX_READ_IDS = 200;

export const listNotificationsQuery = pageQuery.extend({
  unreadOnly: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: 'true: only unread notifications in notifications[] (unreadCount and total are unchanged).' }),
});
export type ListNotificationsQuery = z.infer<typeof listNotificationsQuery>;

export const notification = z
  .object({
    id: z.string().uuid(),
    type: z.string().openapi({
      description:
        'order, payout, refund, system, webhook_endpoint_disabled (an endpoint was turned off after 10 consecutive failed attempts: data { endpointId, url, lastError, disabledAt }), ...',
      example: 'order',
    }),
    title: z.string(),
    body: z.string(),
    data: z.record(z.string(), z.unknown()).openapi({
      description: 'Ids the notification points at (never patient details).',
      example: { orderId: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10' },
    }),
    readAt: z.string().datetime().nullable(),
    createdAt: z.string().datetime(),
  })
  .openapi('Notification');
export type Notification = z.infer<typeof notification>;

export const notificationList = z
  .object({
    notifications: z.array(notification).openapi({ description: 'One page, newest first (page and limit: default 25, at most 200).' }),
    unreadCount: z.number().int().openapi({ description: "The clinic's unread notifications, all of them." }),
    total: z.number().int().openapi({ description: "The clinic's notifications, all of them (read and unread)." }),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .openapi('NotificationList');
export type NotificationList = z.infer<typeof notificationList>;

export const markReadBody = z
  .object({
    ids: z
      .array(z.string().uuid())
      .min(1)
      .max(MAX_READ_IDS)
      .openapi({
        description: `1-${MAX_READ_IDS} notification ids. Ids that are not the clinic's, unknown or already read are not counted.`,
      }),
  })
  .strict()
  .openapi('MarkNotificationsReadRequest');

export const markReadResult = z
  .object({ updated: z.number().int().openapi({ description: "How many of the clinic's unread notifications this call marked read." }) })
  .openapi('MarkNotificationsReadResult');
