// Recover (issue 28, item 3): POST /api/v1/webhooks/{id}/recover { since, until? } queues one new
// delivery per event of the window the endpoint is subscribed to and has not received (nor has
// waiting), with the event's idempotency key; the same call twice queues nothing the second time; a
// large recover drains without a duplicate POST and without keeping other endpoints' events waiting.
import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { outboxEvents, webhookDeliveries, webhookEndpoints } from '../../../drizzle/schema';
import { claimWithin } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/claim';
import { runDueDeliveries } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { dispatchOutbox } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/outbox-fan-out';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import type { WebhookEvent } from '../../../src/platform/events/names';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { fixedDeliveryOptions, useWebhookReceiver } from '../../helpers/webhook-receiver';

const t = useTestApp();
const receiver = useWebhookReceiver(t);
beforeEach(() => {
  receiver.mode = 'ok';
  receiver.delayMs = 0;
});

const DAY = 86_400_000;
const options = () => fixedDeliveryOptions(t);

async function makeEndpoint(clinicId: string, values: Partial<typeof webhookEndpoints.$inferInsert> = {}) {
  const id = randomUUID();
  const [endpoint] = await t.db
    .insert(webhookEndpoints)
    .values({
      id,
      clinicId,
      url: `${receiver.url}?endpoint=${id}`,
      events: ['order.created'],
      createdAt: new Date(Date.now() - 40 * DAY),
      ...values,
    })
    .returning();
  await insertSigningSecret(t.db, clinicId, endpoint!.id, t.config.secretKeys, new Date());
  return endpoint!;
}

/** `n` events already fanned out (dispatched), created at `createdAt` (now by default). */
async function pastEvents(clinicId: string, n: number, createdAt = new Date(), type: WebhookEvent = 'order.created') {
  if (n === 0) return [];
  const rows = await t.db
    .insert(outboxEvents)
    .values(
      Array.from({ length: n }, () => ({
        clinicId,
        eventType: type,
        payload: { orderId: randomUUID() },
        createdAt,
        dispatchedAt: createdAt,
      })),
    )
    .returning({ id: outboxEvents.id });
  return rows.map((r) => r.id);
}

const recover = (key: string, endpointId: string, body: unknown) =>
  t.request(`/api/v1/webhooks/${endpointId}/recover`, { key, method: 'POST', body });
const deliveriesOf = (endpointId: string) => t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
const postsTo = (endpointId: string) => receiver.received.filter((r) => r.path.endsWith(`?endpoint=${endpointId}`));
const since = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

describe('POST /api/v1/webhooks/{id}/recover', () => {
  it('queues one delivery per event of the window with no succeeded or waiting delivery, with its idempotency key; again: nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const endpoint = await makeEndpoint(clinic.id, { events: ['order.created', 'order.shipped'] });
    // Four events fanned out to the endpoint: one succeeded, one failed, one still pending, one held.
    const fanned: string[] = [];
    for (let i = 0; i < 4; i++) fanned.push(await recordOutboxEvent(t.db, clinic.id, 'order.created', { orderId: randomUUID() }));
    await dispatchOutbox(t.db, new Date());
    const statuses = ['succeeded', 'failed', 'pending', 'held'] as const;
    for (const [i, eventId] of fanned.entries()) {
      await t.db
        .update(webhookDeliveries)
        .set({ status: statuses[i]!, nextAttemptAt: statuses[i] === 'pending' ? new Date(Date.now() + DAY) : null })
        .where(and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.outboxEventId, eventId)));
    }
    const failedOriginal = (await deliveriesOf(endpoint.id)).find((d) => d.outboxEventId === fanned[1])!;
    // Events that never had a delivery for it (the cut-off of before, a lost fan-out): two in the window,
    // one older than the window, one of a name it is not subscribed to, one not fanned out yet.
    const [never1, never2] = await pastEvents(clinic.id, 2, new Date(Date.now() - 2 * DAY));
    const [older] = await pastEvents(clinic.id, 1, new Date(Date.now() - 10 * DAY));
    await pastEvents(clinic.id, 1, new Date(Date.now() - DAY), 'payment.succeeded');
    const [undispatched] = await t.db
      .insert(outboxEvents)
      .values({ clinicId: clinic.id, eventType: 'order.created', payload: { orderId: randomUUID() } })
      .returning({ id: outboxEvents.id });
    // Another clinic's event of the same name in the window.
    const { clinic: stranger } = await makeTenant(t.db);
    await pastEvents(stranger.id, 1, new Date(Date.now() - DAY));

    const res = await recover(key, endpoint.id, { since: since(3 * DAY) });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ success: true, data: { queued: 3 } });
    const queued = (await deliveriesOf(endpoint.id)).filter(
      (d) => d.createdAt.getTime() > failedOriginal.createdAt.getTime() || d.replayOf,
    );
    const byEvent = new Map(queued.map((d) => [d.outboxEventId, d]));
    expect([...byEvent.keys()].sort()).toEqual([fanned[1], never1, never2].sort());
    expect(byEvent.get(fanned[1]!)).toMatchObject({
      status: 'pending',
      attempts: 0,
      idempotencyKey: fanned[1],
      replayOf: failedOriginal.id,
    });
    expect(byEvent.get(never1!)).toMatchObject({ status: 'pending', idempotencyKey: never1, replayOf: null });
    expect(byEvent.has(older!)).toBe(false);

    // The same call again, and a wider one: nothing more (everything of the window is waiting now).
    const again = await recover(key, endpoint.id, { since: since(3 * DAY) });
    expect(again.status).toBe(202);
    expect((await again.json()).data).toEqual({ queued: 0 });
    // until bounds the window: only the older event.
    const bounded = await recover(key, endpoint.id, { since: since(11 * DAY), until: since(9 * DAY) });
    expect((await bounded.json()).data).toEqual({ queued: 1 });

    // Sent: each event once by its key (the one not fanned out by the fan-out, as any new event).
    await runDueDeliveries(t.db, new Date(), 200, options());
    const keys = postsTo(endpoint.id).map((r) => r.headers['x-service-idempotency-key']);
    expect(keys.sort()).toEqual([fanned[1], never1, never2, older, undispatched!.id].sort());
  });

  it('queues held deliveries for an endpoint that is off (sent when it is turned on)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const endpoint = await makeEndpoint(clinic.id, { isActive: false });
    await pastEvents(clinic.id, 3, new Date(Date.now() - DAY));
    const res = await recover(key, endpoint.id, { since: since(2 * DAY) });
    expect((await res.json()).data).toEqual({ queued: 3 });
    expect((await deliveriesOf(endpoint.id)).map((d) => [d.status, d.nextAttemptAt])).toEqual([
      ['held', null],
      ['held', null],
      ['held', null],
    ]);
    expect((await (await recover(key, endpoint.id, { since: since(2 * DAY) })).json()).data).toEqual({ queued: 0 });
  });

  it('two identical calls at once queue each event once', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const endpoint = await makeEndpoint(clinic.id);
    await pastEvents(clinic.id, 50, new Date(Date.now() - DAY));
    const answers = await Promise.all([1, 2, 3].map(() => recover(key, endpoint.id, { since: since(2 * DAY) })));
    const queued = await Promise.all(answers.map(async (a) => (await a.json()).data.queued as number));
    expect(queued.reduce((a, b) => a + b, 0)).toBe(50);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(50);
  });

  it('bad input: a clear 400 naming the field, nothing queued', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const endpoint = await makeEndpoint(clinic.id);
    await pastEvents(clinic.id, 2, new Date(Date.now() - DAY));
    const cases: [unknown, string][] = [
      [{ since: new Date(Date.now() + 60_000).toISOString() }, 'body.since: must not be in the future'],
      [{ since: since(31 * DAY) }, 'body.since: must be within the last 30 days'],
      [{ since: since(2 * DAY), until: since(3 * DAY) }, 'body.until: must not be before since'],
      [{ since: 'yesterday' }, 'body.since'],
      [{ since: '2026-01-01T00:00:00' }, 'body.since'],
      [{}, 'body.since'],
      [{ since: since(DAY), extra: 1 }, 'extra'],
      [{ since: 12 }, 'body.since'],
    ];
    for (const [body, message] of cases) {
      const res = await recover(key, endpoint.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const answer = await res.json();
      expect(answer).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(answer.message).toContain(message);
    }
    expect(await deliveriesOf(endpoint.id)).toHaveLength(0);
  });

  it('another clinic, an unknown, a malformed and a deleted id: the same 404; read-only and publishable keys: 403', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const { clinic: other } = await makeTenant(t.db);
    const foreign = await makeEndpoint(other.id);
    const deleted = await makeEndpoint(clinic.id, { deletedAt: new Date(), isActive: false });
    await pastEvents(other.id, 2, new Date(Date.now() - DAY));
    await pastEvents(clinic.id, 2, new Date(Date.now() - DAY));
    const bodies: string[] = [];
    for (const id of [foreign.id, randomUUID(), 'not-a-uuid', deleted.id]) {
      const res = await recover(key, id, { since: since(2 * DAY) });
      expect(res.status, id).toBe(404);
      const answer = await res.json();
      bodies.push(JSON.stringify({ ...answer, requestId: undefined, error: { ...answer.error, requestId: undefined } }));
    }
    expect(new Set(bodies.map((b) => b.replace(/"requestId":"[^"]*"/g, ''))).size).toBe(1);
    expect(await deliveriesOf(foreign.id)).toHaveLength(0);
    expect(await deliveriesOf(deleted.id)).toHaveLength(0);

    const mine = await makeEndpoint(clinic.id);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await recover(readOnly.raw, mine.id, { since: since(2 * DAY) })).status).toBe(403);
    const publishable = await makeKey(t.db, clinic.id, { kind: 'publishable' });
    expect((await recover(publishable.raw, mine.id, { since: since(2 * DAY) })).status).toBe(403);
    expect((await t.request(`/api/v1/webhooks/${mine.id}/recover`, { method: 'POST', body: { since: since(DAY) } })).status).toBe(401);
    expect(await deliveriesOf(mine.id)).toHaveLength(0);
  });
});

describe('draining a large recover', () => {
  it('sends every recovered event exactly once, and other endpoints and clinics are served in the first run', async () => {
    const N = 600;
    const { clinic, key } = await makeTenant(t.db);
    const big = await makeEndpoint(clinic.id);
    await pastEvents(clinic.id, N, new Date(Date.now() - DAY));
    const res = await recover(key, big.id, { since: since(2 * DAY) });
    expect((await res.json()).data).toEqual({ queued: N });

    // Fresh events of another endpoint of the clinic and of another clinic, due after the recovered ones.
    const sibling = await makeEndpoint(clinic.id, { events: ['order.shipped'] });
    const { clinic: other } = await makeTenant(t.db);
    const neighbour = await makeEndpoint(other.id);
    for (let i = 0; i < 3; i++) {
      await recordOutboxEvent(t.db, clinic.id, 'order.shipped', { orderId: randomUUID() });
      await recordOutboxEvent(t.db, other.id, 'order.created', { orderId: randomUUID() });
    }
    const later = new Date(Date.now() + 1_000);
    await dispatchOutbox(t.db, later);
    // The first run's claims (all of them: 10 of the backlog's endpoint, its budget, and every fresh one), rolled back.
    const firstRun = new Set<string>();
    await t.db
      .transaction(async (tx) => {
        for (const d of await claimWithin(tx, later, { limit: 200 })) firstRun.add(d.id);
        tx.rollback();
      })
      .catch(() => undefined);
    const fresh = [...(await deliveriesOf(sibling.id)), ...(await deliveriesOf(neighbour.id))];
    expect(fresh).toHaveLength(6);
    for (const d of fresh) expect(firstRun.has(d.id), 'served in the first run, not after the backlog').toBe(true);

    // Three dispatchers at once, run after run, until nothing is due; the receiver answers in 5 ms.
    receiver.delayMs = 5;
    let now = later.getTime();
    for (let round = 0; round < 20; round++) {
      now += 1_000;
      const runs = await Promise.all([1, 2, 3].map(() => runDueDeliveries(t.db, new Date(now), 200, options())));
      if (runs.every((r) => r.attempted === 0)) break;
    }
    const posts = postsTo(big.id);
    const keys = posts.map((r) => r.headers['x-service-idempotency-key']);
    expect(new Set(keys).size, 'every event').toBe(N);
    expect(keys.length, 'no duplicate POST').toBe(N);
    const rows = await deliveriesOf(big.id);
    expect(rows.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    expect(postsTo(neighbour.id)).toHaveLength(3);
    expect(postsTo(sibling.id)).toHaveLength(3);
    const ids = rows.map((d) => d.outboxEventId!);
    expect(
      (await t.db.select({ id: outboxEvents.id }).from(outboxEvents).where(inArray(outboxEvents.id, ids))).length,
      'keys are the event ids',
    ).toBe(N);
  }, 120_000);
});
