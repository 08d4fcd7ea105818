// The alert when an endpoint is turned off (issue 28, item 4): in the transaction that turns it off, a
// notification of the clinic (type webhook_endpoint_disabled, naming the endpoint and the last error)
// and an email to its active owners and admins through the messaging outbox, once per turn-off.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messages, notifications, webhookEndpoints } from '../../../drizzle/schema';
import { ENDPOINT_FAILURE_CUTOFF, runDueDeliveries } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { useTestApp } from '../../helpers/app';
import { makeTenant, makeUser } from '../../helpers/factories';
import { fixedDeliveryOptions, useWebhookReceiver } from '../../helpers/webhook-receiver';

const t = useTestApp();
const receiver = useWebhookReceiver(t);

const options = () => fixedDeliveryOptions(t);

const alertsOf = (clinicId: string) =>
  t.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.clinicId, clinicId), eq(notifications.type, 'webhook_endpoint_disabled')));
const emailsOf = (clinicId: string) =>
  t.db
    .select()
    .from(messages)
    .where(and(eq(messages.clinicId, clinicId), eq(messages.kind, 'webhook_endpoint_disabled')));

describe('turning an endpoint off', () => {
  it('notifies the clinic and emails its owners and admins once per turn-off, naming the endpoint and the last error only', async () => {
    const { clinic, owner, key } = await makeTenant(t.db);
    const admin = await makeUser(t.db, clinic.id, { role: 'admin' });
    await makeUser(t.db, clinic.id, { role: 'member' });
    await makeUser(t.db, clinic.id, { role: 'admin', isActive: false });
    const { clinic: stranger, key: strangerKey } = await makeTenant(t.db);
    const [endpoint] = await t.db
      .insert(webhookEndpoints)
      .values({ clinicId: clinic.id, url: `${receiver.url}?${randomUUID()}`, events: ['session.completed'] })
      .returning();
    await insertSigningSecret(t.db, clinic.id, endpoint!.id, t.config.secretKeys, new Date());
    const payloads: string[] = [];
    const emit = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const sessionId = randomUUID();
        payloads.push(sessionId);
        await recordOutboxEvent(t.db, clinic.id, 'session.completed', { sessionId, orderId: randomUUID() });
      }
    };

    receiver.mode = 'fail';
    await emit(15);
    let clock = Date.now();
    const tick = () => {
      clock += 60_000;
      return new Date(clock);
    };
    // Three dispatchers at once, 10 attempts in flight each: the cut-off is reached once.
    for (let i = 0; i < 3; i++) {
      const now = tick();
      await Promise.all([1, 2, 3].map(() => runDueDeliveries(t.db, now, 200, options())));
    }
    const off = (await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint!.id)))[0]!;
    expect(off).toMatchObject({ isActive: false, consecutiveFailures: ENDPOINT_FAILURE_CUTOFF });

    const [alert, ...moreAlerts] = await alertsOf(clinic.id);
    expect(moreAlerts).toHaveLength(0);
    expect(alert!.createdAt.getTime()).toBe(off.disabledAt!.getTime());
    expect(alert!.data).toEqual({
      endpointId: endpoint!.id,
      url: endpoint!.url,
      lastError: 'HTTP 500',
      disabledAt: off.disabledAt!.toISOString(),
    });
    expect(alert!.body).toContain(endpoint!.id);
    expect(alert!.body).toContain('HTTP 500');
    const emails = await emailsOf(clinic.id);
    expect(emails.map((m) => m.toAddress).sort()).toEqual([owner.email, admin.email].sort());
    for (const email of emails) {
      expect(email).toMatchObject({ channel: 'email', patientId: null });
      expect(email.subject).toContain(endpoint!.url);
      expect(email.body).toContain('HTTP 500');
      expect(email.body).toContain(`/api/v1/webhooks/${endpoint!.id}/recover`);
    }
    // No event, no receiver answer in what is written.
    for (const text of [alert!.body, JSON.stringify(alert!.data), ...emails.map((m) => m.body)]) {
      for (const id of payloads) expect(text).not.toContain(id);
    }

    // Read through the API by the clinic; another clinic sees nothing of it.
    const listed = await t.request('/api/v1/notifications', { key });
    expect(listed.status).toBe(200);
    const mine = ((await listed.json()).data.notifications as { type: string; data: Record<string, unknown> }[]).filter(
      (n) => n.type === 'webhook_endpoint_disabled',
    );
    expect(mine).toEqual([expect.objectContaining({ data: expect.objectContaining({ endpointId: endpoint!.id, lastError: 'HTTP 500' }) })]);
    const theirs = await t.request('/api/v1/notifications', { key: strangerKey });
    expect(((await theirs.json()).data.notifications as { type: string }[]).some((n) => n.type === 'webhook_endpoint_disabled')).toBe(
      false,
    );
    expect(await alertsOf(stranger.id)).toHaveLength(0);

    // More dispatcher runs while it is off: no second alert.
    for (let i = 0; i < 2; i++) await runDueDeliveries(t.db, tick(), 200, options());
    expect(await alertsOf(clinic.id)).toHaveLength(1);
    expect(await emailsOf(clinic.id)).toHaveLength(2);

    // Turned on while the receiver still fails: turned off again, a second alert (one per turn-off).
    const on = await t.request(`/api/v1/webhooks/${endpoint!.id}`, { key, method: 'PATCH', body: { isActive: true } });
    expect(on.status).toBe(200);
    clock = Math.max(clock, Date.now());
    for (let i = 0; i < 2; i++) await runDueDeliveries(t.db, tick(), 200, options());
    expect(await alertsOf(clinic.id)).toHaveLength(2);
    expect(await emailsOf(clinic.id)).toHaveLength(4);
  });

  it('does not alert when the brand turns the endpoint off itself', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const [endpoint] = await t.db
      .insert(webhookEndpoints)
      .values({ clinicId: clinic.id, url: receiver.url, events: ['session.completed'] })
      .returning();
    const res = await t.request(`/api/v1/webhooks/${endpoint!.id}`, { key, method: 'PATCH', body: { isActive: false } });
    expect(res.status).toBe(200);
    expect(await alertsOf(clinic.id)).toHaveLength(0);
    expect(await emailsOf(clinic.id)).toHaveLength(0);
  });
});
