// Notifications: the clinic's list with real unreadCount and total, and marking them read.
import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { notifications } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
const PATH = '/api/v1/notifications';

async function seed(clinicId: string, count: number, read: number[] = []) {
  const base = Date.now() - 60_000;
  const rows = await t.db
    .insert(notifications)
    .values(
      Array.from({ length: count }, (_, i) => ({
        clinicId,
        type: i % 2 ? 'order' : 'payout',
        title: `Notice ${i}`,
        body: `Body ${i}`,
        data: { orderId: randomUUID() },
        readAt: read.includes(i) ? new Date(base) : null,
        createdAt: new Date(base + i * 1_000),
      })),
    )
    .returning();
  return rows;
}

/** Statements sent for one request (the request log, written after it, not counted). */
const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

describe('GET /api/v1/notifications', () => {
  it('answers a page newest first with the real unreadCount and total', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    await seed(other.clinic.id, 4);
    const rows = await seed(clinic.id, 5, [0, 3]);
    const res = await t.request(PATH, { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.total).toBe(5);
    expect(data.unreadCount).toBe(3);
    expect(data.notifications.map((n: { id: string }) => n.id)).toEqual([...rows].reverse().map((r) => r.id));
    expect(data.notifications[0]).toEqual({
      id: rows[4]!.id,
      type: 'payout',
      title: 'Notice 4',
      body: 'Body 4',
      data: rows[4]!.data,
      readAt: null,
      createdAt: rows[4]!.createdAt.toISOString(),
    });
    expect(data.notifications[1].readAt).toBe(rows[3]!.readAt!.toISOString());
    expect(data).toMatchObject({ page: 1, limit: 25 });
  });

  it('pages (a page past the end still has the counts) and filters unread only', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const rows = await seed(clinic.id, 5, [4]);
    const page2 = (await (await t.request(`${PATH}?limit=2&page=2`, { key })).json()).data;
    expect(page2.notifications.map((n: { id: string }) => n.id)).toEqual([rows[2]!.id, rows[1]!.id]);
    expect([page2.total, page2.unreadCount]).toEqual([5, 4]);
    const past = (await (await t.request(`${PATH}?limit=2&page=9`, { key })).json()).data;
    expect(past).toEqual({ notifications: [], unreadCount: 4, total: 5, page: 9, limit: 2 });
    const unread = (await (await t.request(`${PATH}?unreadOnly=true`, { key })).json()).data;
    expect(unread.notifications.map((n: { id: string }) => n.id)).not.toContain(rows[4]!.id);
    expect(unread.notifications).toHaveLength(4);
    expect(unread.total).toBe(5);
    expect((await t.request(`${PATH}?limit=201`, { key })).status).toBe(400);
  });

  it('answers zeros for a clinic without notifications, from one query', async () => {
    const { key } = await makeTenant(t.db);
    await t.request(PATH, { key }); // warm the key's lookup path
    const { status, count } = await statements(() => t.request(PATH, { key }));
    expect(status).toBe(200);
    expect(count).toBe(2); // the key lookup and the list
    expect((await (await t.request(PATH, { key })).json()).data).toEqual({
      notifications: [],
      unreadCount: 0,
      total: 0,
      page: 1,
      limit: 25,
    });
  });
});

describe('POST /api/v1/notifications/read', () => {
  it("marks the clinic's unread ones read and counts only those", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const mine = await seed(clinic.id, 4, [1]);
    const theirs = await seed(other.clinic.id, 2);
    t.clock.freezeAt(Date.now());
    const ids = [mine[0]!.id, mine[1]!.id, mine[2]!.id, mine[2]!.id.toUpperCase(), theirs[0]!.id, '00000000-0000-4000-8000-00000000abcd'];
    const res = await t.request(`${PATH}/read`, { key, body: { ids } });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ updated: 2 });
    const stored = await t.db
      .select()
      .from(notifications)
      .where(
        inArray(
          notifications.id,
          [...mine, ...theirs].map((r) => r.id),
        ),
      );
    const readAt = (id: string) => stored.find((r) => r.id === id)!.readAt;
    expect(readAt(mine[0]!.id)).toEqual(new Date(t.clock.now()));
    expect(readAt(mine[1]!.id)).toEqual(mine[1]!.readAt); // already read: untouched
    expect(readAt(mine[3]!.id)).toBeNull();
    expect(readAt(theirs[0]!.id)).toBeNull();
    expect((await (await t.request(PATH, { key })).json()).data.unreadCount).toBe(1);
    expect((await (await t.request(`${PATH}/read`, { key, body: { ids } })).json()).data).toEqual({ updated: 0 });
  });

  it('refuses malformed ids, an empty or oversized list (400), and a read-only key (403)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const [row] = await seed(clinic.id, 1);
    for (const body of [
      { ids: ['nope'] },
      { ids: [] },
      { ids: Array.from({ length: 201 }, () => randomUUID()) },
      {},
      { ids: row!.id },
      { ids: [row!.id], all: true },
    ]) {
      const res = await t.request(`${PATH}/read`, { key, body });
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
    expect((await (await t.request(`${PATH}/read`, { key: readOnly.raw, body: { ids: [row!.id] } })).json()).code).toBe(
      'INSUFFICIENT_SCOPE',
    );
    const [stored] = await t.db.select().from(notifications).where(eq(notifications.id, row!.id));
    expect(stored!.readAt).toBeNull();
  });
});
