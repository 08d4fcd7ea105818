// The platform's signed entry point (POST /internal/platform/..., docs/webhooks.md "The platform's entry
// point") and the rule behind it: whatever writes an outbox event kicks delivery, so every event reaches
// a receiver without the cron (here through the QStash stand-in, as in production).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { questionnaires, webhookDeliveries, webhookEndpoints } from '../../../drizzle/schema';
import { QSTASH_CALLBACK_PATH, type QStashConfig } from '../../../src/config';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import type { WebhookEvent } from '../../../src/platform/events/names';
import { PLATFORM_HEADERS, signPlatformRequest } from '../../../src/platform/http/platform-request';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { createPendingOrder } from '../../helpers/order-fixtures';
import { makeGlobalProduct, makeProgram } from '../../helpers/program-fixtures';
import { type QStashStandIn, qstashConfigFor, startQStashStandIn } from '../../tooling/qstash-stand-in';
import { startWebhookReceiver, type WebhookReceiver } from '../../tooling/webhook-receiver';

const t = useTestApp();
let qstash: QStashStandIn;
let receiver: WebhookReceiver;
const CALLBACK_URL = `https://api.example.test${QSTASH_CALLBACK_PATH}`;

beforeAll(async () => {
  [qstash, receiver] = await Promise.all([startQStashStandIn(), startWebhookReceiver()]);
  const config: QStashConfig = qstashConfigFor(qstash, CALLBACK_URL);
  t.config.qstash = config;
  t.config.webhookAllowInsecureLocalhost = true;
});
afterAll(async () => {
  t.config.qstash = null;
  await Promise.all([qstash?.close(), receiver?.close()]);
});
beforeEach(async () => {
  // Publication is global (every clinic's due deliveries): close what earlier tests left pending.
  await t.db.update(webhookDeliveries).set({ status: 'failed', nextAttemptAt: null }).where(eq(webhookDeliveries.status, 'pending'));
  receiver.received.length = 0;
  qstash.messages.length = 0;
});

const callApp = (url: string, init: { method: 'POST'; headers: Record<string, string>; body: string }) =>
  Promise.resolve(t.app.request(new URL(url).pathname, init));

/** A signed platform request, as the platform makes it. */
async function platform(path: string, clinicId: string, body: unknown, tamper: (h: Record<string, string>) => void = () => {}) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const headers = await signPlatformRequest(t.config.secretKeys, {
    method: 'POST',
    path,
    clinicId,
    body: raw,
    now: new Date(t.clock.now()),
  });
  tamper(headers);
  return t.request(path, { method: 'POST', body: raw, headers: { ...headers, 'content-type': 'application/json' } });
}

async function subscribedClinic(events: WebhookEvent[]) {
  const tenant = await makeTenant(t.db);
  const [endpoint] = await t.db.insert(webhookEndpoints).values({ clinicId: tenant.clinic.id, url: receiver.url, events }).returning();
  await insertSigningSecret(t.db, tenant.clinic.id, endpoint!.id, t.config.secretKeys, new Date());
  return { ...tenant, endpoint: endpoint! };
}

/** No cron: only what the request's own kick published, called back by the stand-in. */
async function receivedWithoutCron(): Promise<string[]> {
  await t.flush();
  await qstash.deliverDue(callApp);
  await t.flush();
  return receiver.received.map((r) => (JSON.parse(r.rawBody) as { type: string }).type);
}

/**
 * Every writer of the outbox in src/ (the calls of recordOutboxEvent, the one insert into outbox_events),
 * and how each reaches a receiver without the cron. A new writer fails the inventory test until it is
 * listed here with a scenario.
 */
const WRITERS: Record<string, { calls: number; how: string }> = {
  'src/modules/webhooks-checkout/checkout/complete-session.ts': {
    calls: 1,
    how: 'POST /internal/platform/checkout/sessions/{id}/complete',
  },
  'src/modules/orders/orders/lifecycle/outbox.ts': { calls: 1, how: 'POST /internal/platform/orders/{id}/events' },
  'src/modules/storefront/analytics/intake-events.ts': {
    calls: 2,
    how: 'POST /internal/platform/intake/sessions (intake.started); intake.abandoned is written by a cron sweep that runs before the delivery sweep of the same run',
  },
  'src/modules/crm/contacts/service.ts': { calls: 1, how: 'PUT /api/v1/contacts/{id}' },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('every writer of the outbox kicks delivery', () => {
  it('the inventory: recordOutboxEvent is the only insert into the outbox, and its callers are the ones listed', () => {
    const root = join(__dirname, '../../..');
    const found: Record<string, number> = {};
    for (const file of sourceFiles(join(root, 'src'))) {
      const rel = relative(root, file);
      const source = readFileSync(file, 'utf8');
      if (rel !== 'src/platform/events/outbox.ts') {
        expect(source, `${rel} inserts into the outbox directly`).not.toMatch(/insert\(\s*outboxEvents\s*\)/);
        const calls = source.match(/\brecordOutboxEvent\(/g)?.length ?? 0;
        if (calls) found[rel] = calls;
      }
    }
    expect(found).toEqual(Object.fromEntries(Object.entries(WRITERS).map(([file, { calls }]) => [file, calls])));
  });

  it('checkout completion through the platform entry point: session.completed, order.created reach the receiver', async () => {
    const w = await subscribedClinic(['session.completed', 'order.created']);
    const publishable = await makeKey(t.db, w.clinic.id, { kind: 'publishable', scopes: ['read', 'write'] });
    const product = await makeGlobalProduct(t.db);
    const program = await makeProgram(t.db, w.clinic.id, { state: 'live', isActive: true }, [
      { globalProductId: product.id, programBaseFeeCents: 5_000 },
    ]);
    const created = await t.request('/api/v1/checkout/sessions', {
      key: publishable.raw,
      body: { programId: program.id, successUrl: 'https://brand.example.com/done' },
    });
    expect(created.status).toBe(201);
    const { sessionId } = (await created.json()).data;
    const res = await platform(`/internal/platform/checkout/sessions/${sessionId}/complete`, w.clinic.id, {});
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await receivedWithoutCron()).sort()).toEqual(['order.created', 'session.completed']);
  });

  it('an order transition through the platform entry point: order.doctor_approved reaches the receiver', async () => {
    const w = await subscribedClinic(['payment.succeeded', 'order.doctor_approved']);
    const order = await createPendingOrder(t.db, w.clinic.id);
    expect((await platform(`/internal/platform/orders/${order.id}/events`, w.clinic.id, { event: 'payment.succeeded' })).status).toBe(200);
    const approved = await platform(`/internal/platform/orders/${order.id}/events`, w.clinic.id, { event: 'order.doctor_approved' });
    expect(approved.status, await approved.clone().text()).toBe(200);
    expect((await receivedWithoutCron()).sort()).toEqual(['order.doctor_approved', 'payment.succeeded']);
  });

  it('an intake start through the platform entry point: intake.started reaches the receiver', async () => {
    const w = await subscribedClinic(['intake.started']);
    const [form] = await t.db.insert(questionnaires).values({ clinicId: w.clinic.id, name: 'Weight intake' }).returning();
    const res = await platform('/internal/platform/intake/sessions', w.clinic.id, { formId: form!.id, totalSteps: 5 });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await receivedWithoutCron()).toEqual(['intake.started']);
  });

  it('an API route that writes an event (a contact opting out) kicks without declaring anything', async () => {
    const w = await subscribedClinic(['contact.unsubscribed']);
    const created = await t.request('/api/v1/contacts', {
      key: w.key,
      body: { firstName: 'Jane', lastName: 'Doe', email: 'jane@example.test' },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()).data;
    const res = await t.request(`/api/v1/contacts/${id}`, { method: 'PUT', key: w.key, body: { emailOptedOut: true } });
    expect(res.status).toBe(200);
    expect(await receivedWithoutCron()).toEqual(['contact.unsubscribed']);
  });
});

describe('POST /internal/platform/...: signed, refused otherwise', () => {
  it('refuses missing, malformed, wrongly signed, tampered, re-addressed and stale requests with 401 and changes nothing', async () => {
    const w = await subscribedClinic(['payment.succeeded']);
    const other = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, w.clinic.id);
    const path = `/internal/platform/orders/${order.id}/events`;
    const body = { event: 'payment.succeeded' };
    const refused = [
      await t.request(path, { method: 'POST', body }),
      await platform(path, w.clinic.id, body, (h) => {
        h[PLATFORM_HEADERS.signature] = 'v1=not-base64';
      }),
      await platform(path, w.clinic.id, body, (h) => {
        h[PLATFORM_HEADERS.signature] = `v1=${Buffer.alloc(32, 1).toString('base64')}`;
      }),
      // Signed for one clinic, sent for another.
      await platform(path, w.clinic.id, body, (h) => {
        h[PLATFORM_HEADERS.clinic] = other.clinic.id;
      }),
      // Signed for another time (replayed ten minutes later).
      await platform(path, w.clinic.id, body, (h) => {
        h[PLATFORM_HEADERS.timestamp] = String(Number(h[PLATFORM_HEADERS.timestamp]) - 600);
      }),
      await platform(path, w.clinic.id, body, (h) => {
        delete h[PLATFORM_HEADERS.timestamp];
      }),
    ];
    // Signed by someone holding another root secret.
    const foreign = await signPlatformRequest(Buffer.alloc(32, 9).toString('base64'), {
      method: 'POST',
      path,
      clinicId: w.clinic.id,
      body: JSON.stringify(body),
      now: new Date(t.clock.now()),
    });
    refused.push(await t.request(path, { method: 'POST', body: JSON.stringify(body), headers: foreign }));
    for (const res of refused) {
      expect(res.status).toBe(401);
      expect((await res.json()) as object).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    }
    expect(await receivedWithoutCron()).toEqual([]);
  });

  it("another clinic's ids are the 404 of unknown ones; bad bodies are 400s naming the field", async () => {
    const w = await subscribedClinic(['payment.succeeded']);
    const other = await makeTenant(t.db);
    const order = await createPendingOrder(t.db, w.clinic.id);
    const foreign = await platform(`/internal/platform/orders/${order.id}/events`, other.clinic.id, { event: 'payment.succeeded' });
    const unknown = await platform(`/internal/platform/orders/${crypto.randomUUID()}/events`, w.clinic.id, { event: 'payment.succeeded' });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(((await foreign.json()) as { message: string }).message).toBe(((await unknown.json()) as { message: string }).message);
    const bad = await platform(`/internal/platform/orders/${order.id}/events`, w.clinic.id, { event: 'order.teleported' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('event');
    const session = await platform(`/internal/platform/checkout/sessions/${crypto.randomUUID()}/complete`, w.clinic.id, { nope: 1 });
    expect([400, 404]).toContain(session.status);
    expect(await receivedWithoutCron()).toEqual([]);
  });

  it('exists without the development simulator (production) and is not in the OpenAPI document', async () => {
    expect(t.config.devSimulator).toBe(false);
    const doc = (await (await t.request('/api/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/internal'))).toEqual([]);
    const w = await subscribedClinic(['payment.succeeded']);
    const order = await createPendingOrder(t.db, w.clinic.id);
    expect((await platform(`/internal/platform/orders/${order.id}/events`, w.clinic.id, { event: 'payment.succeeded' })).status).toBe(200);
    expect(await receivedWithoutCron()).toEqual(['payment.succeeded']);
  });
});
