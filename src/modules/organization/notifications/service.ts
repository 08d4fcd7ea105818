import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { notifications } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { isoTimestamp, rowsOf } from '../../../platform/db/sql';
import { pageOffset } from '../../../platform/http/pagination';
import type { ListNotificationsQuery, Notification, NotificationList } from './schemas';

interface ListRow {
  total: number;
  unread_count: number;
  id: string | null;
  type: string | null;
  title: string | null;
  body: string | null;
  data: Record<string, unknown> | null;
  read_at: string | null;
  created_at: string | null;
}

/**
 * One page of the clinic's notifications (newest first) with its total and unread count, in one
 * statement: the counts come from a CTE over the clinic's rows, the page is joined to it laterally,
 * so a page past the end still answers the real counts (one row with null notification columns).
 */
export async function listNotifications(ctx: HandlerContext, query: ListNotificationsQuery): Promise<NotificationList> {
  const { db, clinicId } = ctx;
  const unreadOnly = query.unreadOnly === 'true';
  const rows = await rowsOf<ListRow>(
    db,
    sql`
    with counts as (
      select count(*)::int as total, (count(*) filter (where ${notifications.readAt} is null))::int as unread_count
      from ${notifications} where ${notifications.clinicId} = ${clinicId}
    )
    select counts.total, counts.unread_count, n.id, n.type, n.title, n.body, n.data,
      ${isoTimestamp(sql`n.read_at`)} as read_at, ${isoTimestamp(sql`n.created_at`)} as created_at
    from counts
    left join lateral (
      select id, type, title, body, data, read_at, created_at from ${notifications}
      where clinic_id = ${clinicId} ${unreadOnly ? sql`and read_at is null` : sql``}
      order by created_at desc, id desc
      limit ${query.limit} offset ${pageOffset(query)}
    ) n on true
    order by n.created_at desc nulls last, n.id desc`,
  );
  const first = rows[0];
  const list: Notification[] = rows
    .filter((r) => r.id !== null)
    .map((r) => ({
      id: r.id!,
      type: r.type!,
      title: r.title!,
      body: r.body!,
      data: r.data ?? {},
      readAt: r.read_at,
      createdAt: r.created_at!,
    }));
  return { notifications: list, unreadCount: first?.unread_count ?? 0, total: first?.total ?? 0, page: query.page, limit: query.limit };
}

/** Marks the given notifications read; only the clinic's own unread ones change and are counted. */
export async function markNotificationsRead(ctx: HandlerContext, ids: string[]) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const updated = await db
    .update(notifications)
    .set({ readAt: now })
    .where(
      and(
        eq(notifications.clinicId, clinicId),
        inArray(notifications.id, [...new Set(ids.map((id) => id.toLowerCase()))]),
        isNull(notifications.readAt),
      ),
    )
    .returning({ id: notifications.id });
  return { updated: updated.length };
}
