// The events API (issue 28, item 1): GET /api/v1/events and GET /api/v1/events/{id}, kept 30 days, and
// the retention sweep that deletes older events in bounded batches.
import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { outboxEvents, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../../drizzle/schema';
import { pruneExpiredEvents } from '../../../src/modules/webhooks-checkout/events/retention';
import { dispatchOutbox } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/outbox-fan-out';
import { rowsOf } from '../../../src/platform/db/sql';
import type { WebhookEvent } from '../../../src/platform/events/names';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
afterEach(() => t.clock.unfreeze());

const DAY = 86_400_000;

async function event(clinicId: string, type: WebhookEvent, at: Date, payload: Record<string, string> = { orderId: randomUUID() }) {
  const id = await recordOutboxEvent(t.db, clinicId, type, payload, at);
  return { id, type, at, payload };
}

async function endpoint(clinicId: string, values: Partial<typeof webhookEndpoints.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(webhookEndpoints)
    .values({
      clinicId,
      url: 'https://hooks.example.com/in',
      events: ['order.created'],
      createdAt: new Date(Date.now() - 40 * DAY),
      ...values,
    })
    .returning();
  return row!;
}

const get = async (path: string, key: string) => {
  const res = await t.request(path, { key });
  return { status: res.status, body: await res.json() };
};

describe('GET /api/v1/events', () => {
  it('lists the clinic’s events of the last 30 days, newest first, paged, exactly as delivered', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const now = Date.now();
    const a = await event(clinic.id, 'order.created', new Date(now - 3 * DAY));
    const b = await event(clinic.id, 'payment.succeeded', new Date(now - 2 * DAY), { orderId: randomUUID(), orderEventId: randomUUID() });
    const c = await event(clinic.id, 'contact.unsubscribed', new Date(now - DAY), { contactId: randomUUID() });
    await event(clinic.id, 'order.created', new Date(now - 31 * DAY)); // expired: never listed
    const { clinic: other } = await makeTenant(t.db);
    await event(other.id, 'order.created', new Date(now - DAY));

    const first = await get('/api/v1/events?limit=2', key);
    expect(first.status).toBe(200);
    expect(first.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(first.body.data).toEqual([
      { id: c.id, type: 'contact.unsubscribed', createdAt: c.at.toISOString(), data: c.payload },
      { id: b.id, type: 'payment.succeeded', createdAt: b.at.toISOString(), data: b.payload },
    ]);
    const second = await get('/api/v1/events?limit=2&page=2', key);
    expect(second.body.data.map((e: { id: string }) => e.id)).toEqual([a.id]);
    const past = await get('/api/v1/events?limit=2&page=3', key);
    expect(past.body).toMatchObject({ data: [], pagination: { total: 3 } });
  });

  it('filters by one or more types (repeated or comma-separated) and by creation time', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const now = Date.now();
    const a = await event(clinic.id, 'order.created', new Date(now - 3 * DAY));
    const b = await event(clinic.id, 'payment.succeeded', new Date(now - 2 * DAY));
    const c = await event(clinic.id, 'order.shipped', new Date(now - DAY));
    const ids = async (query: string) => (await get(`/api/v1/events?${query}`, key)).body.data.map((e: { id: string }) => e.id);
    expect(await ids('type=order.created')).toEqual([a.id]);
    expect(await ids('type=order.created&type=order.shipped')).toEqual([c.id, a.id]);
    expect(await ids('type=order.created,payment.succeeded')).toEqual([b.id, a.id]);
    expect(await ids(`createdGte=${encodeURIComponent(b.at.toISOString())}`)).toEqual([c.id, b.id]);
    expect(await ids(`createdLte=${encodeURIComponent(b.at.toISOString())}`)).toEqual([b.id, a.id]);
    expect(await ids(`createdGte=${encodeURIComponent(b.at.toISOString())}&createdLte=${encodeURIComponent(b.at.toISOString())}`)).toEqual([
      b.id,
    ]);
    // A window reaching past 30 days shows only what is kept.
    expect(await ids(`createdGte=${encodeURIComponent(new Date(now - 365 * DAY).toISOString())}`)).toEqual([c.id, b.id, a.id]);
  });

  it('refuses unknown event names (naming them) and malformed times with 400, never a 5xx', async () => {
    const { key } = await makeTenant(t.db);
    const unknown = await get('/api/v1/events?type=order.created&type=order.exploded,nope', key);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('query.type: unknown event names: "order.exploded", "nope"');
    for (const query of ['createdGte=yesterday', 'createdLte=2026-13-01T00:00:00Z', 'limit=0', 'limit=201', 'page=0']) {
      const res = await get(`/api/v1/events?${query}`, key);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toContain(`query.${query.split('=')[0]}`);
    }
  });

  it('answers read keys, refuses a publishable key and no key', async () => {
    const { clinic } = await makeTenant(t.db);
    const { raw: readOnly } = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await t.request('/api/v1/events', { key: readOnly })).status).toBe(200);
    const { raw: publishable } = await makeKey(t.db, clinic.id, { kind: 'publishable' });
    expect((await t.request('/api/v1/events', { key: publishable })).status).toBe(403);
    expect((await t.request('/api/v1/events')).status).toBe(401);
  });
});

describe('GET /api/v1/events/{id}', () => {
  it('answers the event and, per endpoint of the clinic, whether it was delivered', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const delivered = await endpoint(clinic.id, { url: 'https://a.example.com/in' });
    const off = await endpoint(clinic.id, { url: 'https://b.example.com/in', isActive: false });
    const unsubscribed = await endpoint(clinic.id, { url: 'https://c.example.com/in', events: ['order.shipped'] });
    await endpoint(clinic.id, { url: 'https://d.example.com/in', deletedAt: new Date() });
    const e = await event(clinic.id, 'order.created', new Date(Date.now() - DAY));
    await dispatchOutbox(t.db, new Date());
    const succeededAt = new Date();
    await t.db
      .update(webhookDeliveries)
      .set({ status: 'succeeded', attempts: 1, succeededAt })
      .where(eq(webhookDeliveries.endpointId, delivered.id));

    const res = await get(`/api/v1/events/${e.id}`, key);
    expect(res.status).toBe(200);
    // Endpoints come in creation order; the three here may share a timestamp, so they are compared by id.
    const byId = (a: { endpointId: string }, b: { endpointId: string }) => a.endpointId.localeCompare(b.endpointId);
    expect({ ...res.body.data, endpoints: [...res.body.data.endpoints].sort(byId) }).toEqual({
      id: e.id,
      type: 'order.created',
      createdAt: e.at.toISOString(),
      data: e.payload,
      endpoints: [
        { endpointId: delivered.id, subscribed: true, delivered: true, deliveredAt: succeededAt.toISOString(), status: 'succeeded' },
        { endpointId: off.id, subscribed: true, delivered: false, deliveredAt: null, status: 'held' },
        { endpointId: unsubscribed.id, subscribed: false, delivered: false, deliveredAt: null, status: null },
      ].sort(byId),
    });
  });

  it('answers the same 404 for another clinic’s, an unknown, a malformed and an expired id', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const { clinic: other } = await makeTenant(t.db);
    const foreign = await event(other.id, 'order.created', new Date());
    const expired = await event(clinic.id, 'order.created', new Date(Date.now() - 30 * DAY - 60_000));
    const kept = await event(clinic.id, 'order.created', new Date(Date.now() - 29 * DAY));
    expect((await get(`/api/v1/events/${kept.id}`, key)).status).toBe(200);
    const answers = [];
    for (const id of [foreign.id, randomUUID(), 'not-a-uuid', expired.id]) {
      const res = await get(`/api/v1/events/${id}`, key);
      expect(res.status, id).toBe(404);
      answers.push(res.body.error);
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    // The event turns 404 when it passes 30 days, before any sweep.
    t.clock.freezeAt(Date.now() + DAY + 60_000);
    expect((await get(`/api/v1/events/${kept.id}`, key)).status).toBe(404);
  });
});

describe('retention', () => {
  it('deletes events older than 30 days with their deliveries and attempts, in bounded batches', async () => {
    const { clinic } = await makeTenant(t.db);
    const ep = await endpoint(clinic.id, { createdAt: new Date(Date.now() - 60 * DAY) });
    const old = new Date(Date.now() - 31 * DAY);
    await t.db.execute(sql`
      insert into outbox_events (clinic_id, event_type, payload, created_at, dispatched_at)
      select ${clinic.id}, 'order.created', '{}'::jsonb, ${old.toISOString()}::timestamptz + (g || ' ms')::interval, now()
      from generate_series(1, 25) g`);
    const recent = await event(clinic.id, 'order.created', new Date(Date.now() - 29 * DAY));
    const [oldest] = await t.db
      .select({ id: outboxEvents.id })
      .from(outboxEvents)
      .where(eq(outboxEvents.createdAt, new Date(old.getTime() + 1)));
    const [delivery] = await t.db
      .insert(webhookDeliveries)
      .values({
        clinicId: clinic.id,
        endpointId: ep.id,
        outboxEventId: oldest!.id,
        eventType: 'order.created',
        idempotencyKey: oldest!.id,
        status: 'failed',
      })
      .returning();
    await t.db.insert(webhookAttempts).values({ clinicId: clinic.id, deliveryId: delivery!.id, attemptNumber: 1, durationMs: 3 });
    const countOf = async () =>
      (await rowsOf<{ n: number }>(t.db, sql`select count(*)::int as n from outbox_events where clinic_id = ${clinic.id}`))[0]!.n;

    // Other clinics' expired events (from other tests) may be swept too: count only this clinic's.
    // Bounded: 2 batches of 10 per call at most, oldest first.
    await pruneExpiredEvents(t.db, new Date(), 10, 2);
    expect(await countOf()).toBeLessThanOrEqual(26);
    expect(await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery!.id))).toHaveLength(0);
    expect(await t.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery!.id))).toHaveLength(0);
    while ((await pruneExpiredEvents(t.db, new Date(), 10, 2)) > 0);
    expect(await countOf()).toBe(1);
    expect(
      await t.db
        .select()
        .from(outboxEvents)
        .where(inArray(outboxEvents.id, [recent.id])),
    ).toHaveLength(1);
  });

  it('deletes at most batch × batches events per call', async () => {
    const { clinic } = await makeTenant(t.db);
    const old = new Date(Date.now() - 40 * DAY);
    await t.db.execute(sql`
      insert into outbox_events (clinic_id, event_type, payload, created_at, dispatched_at)
      select ${clinic.id}, 'order.created', '{}'::jsonb, ${old.toISOString()}::timestamptz, now()
      from generate_series(1, 30) g`);
    expect(await pruneExpiredEvents(t.db, new Date(), 5, 3)).toBe(15);
  });
});
