// Faults: an Idempotency-Key write whose connection dies at every point of its one transaction (the
// key's claim, the write, the kept answer, the commit: src/platform/http/idempotency.ts), on the app as
// the Worker composes it (a connection per request). For a write with a unique field (a coupon's code),
// one without (a support ticket) and a refund (a provider call): the connection is cut after the claim,
// after the write, after the answer is kept (before the commit), and at the commit (done by the server,
// its answer lost). Then the same request again, at once and after the abandon window
// (IDEMPOTENCY_ABANDONED_MS): exactly one resource, and one refund at the provider.
import { randomUUID } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { coupons, refunds, supportTickets } from '../../drizzle/schema';
import { IDEMPOTENCY_ABANDONED_MS } from '../../src/platform/http/idempotency';
import { DevelopmentPaymentProcessor } from '../../src/platform/providers/payments/development';
import type { RefundInput } from '../../src/platform/providers/payments/types';
import { useTestApp } from '../helpers/app';
import { makeTenant } from '../helpers/factories';
import { deliveredOrder, recordCharge } from '../helpers/money-fixtures';
import { makeOrder } from '../helpers/order-fixtures';
import { type PgFaultProxy, startPgFaultProxy } from './pg-fault-proxy';
import { type WorkerApp, type WorkerRequest, workerApp } from './worker-app';

const t = useTestApp();
let proxy: PgFaultProxy;
let worker: WorkerApp;

/** Refunds at the provider, by the provider's idempotency key (as Stripe keeps them): a repeated key returns the first refund. */
const providerRefunds = new Map<string, { processorRefundId: string }>();
let providerCalls = 0;

beforeAll(async () => {
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.spyOn(DevelopmentPaymentProcessor.prototype, 'refund').mockImplementation(async (input: RefundInput) => {
    providerCalls++;
    let refund = providerRefunds.get(input.idempotencyKey);
    if (!refund) {
      refund = { processorRefundId: `re_dev_${randomUUID().replaceAll('-', '')}` };
      providerRefunds.set(input.idempotencyKey, refund);
    }
    return refund;
  });
  proxy = await startPgFaultProxy(t.databaseUrl, { ignore: /\brequest_logs\b/ });
  worker = workerApp({ ENVIRONMENT: 'test', DATABASE_URL: proxy.url, DATABASE_MAX_CONNECTIONS: '2' });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await proxy?.close();
});

const unique = () => randomUUID().slice(0, 8);

interface Case {
  name: string;
  /** The request, on a fresh clinic. */
  prepare(clinicId: string, key: string): Promise<{ path: string; request: WorkerRequest }>;
  /** How many of the resource the clinic has. */
  made(clinicId: string): Promise<number>;
  /** The statements that write, in order: the claim, the operation's, the answer. */
  writes: number;
}

const CASES: Case[] = [
  {
    name: 'a coupon (a unique field, its code)',
    prepare: async (_, key) => ({
      path: '/api/v1/coupons',
      request: { key, body: { code: `KEPT${unique()}`, discountType: 'percent', discountValue: 10 } },
    }),
    made: async (clinicId) => (await t.db.select({ n: count() }).from(coupons).where(eq(coupons.clinicId, clinicId)))[0]!.n,
    writes: 3,
  },
  {
    name: 'a support ticket (no unique field)',
    prepare: async (_, key) => ({
      path: '/api/v1/support/tickets',
      request: { key, body: { title: 'Payout did not arrive', description: 'Not in our account yet.' } },
    }),
    made: async (clinicId) => (await t.db.select({ n: count() }).from(supportTickets).where(eq(supportTickets.clinicId, clinicId)))[0]!.n,
    writes: 0, // measured in the fault-free run
  },
  {
    name: 'a refund (a provider call)',
    prepare: async (clinicId, key) => {
      const order = await makeOrder(t.db, clinicId, deliveredOrder(12_000, 7_000, new Date(Date.now() - 3 * 86_400_000)));
      await recordCharge(t.db, order);
      return { path: '/api/v1/refunds', request: { key, body: { orderId: order.id, reason: 'Shipment lost' } } };
    },
    made: async (clinicId) =>
      (
        await t.db
          .select({ n: count() })
          .from(refunds)
          .where(and(eq(refunds.clinicId, clinicId)))
      )[0]!.n,
    writes: 0,
  },
];

async function fresh(c: Case) {
  const { clinic, key } = await makeTenant(t.db);
  const call = await c.prepare(clinic.id, key);
  call.request.headers = { 'idempotency-key': randomUUID() };
  return { clinicId: clinic.id, call };
}

describe.each(CASES.map((c) => [c.name, c] as const))('an Idempotency-Key write, %s, its connection cut', (_, c) => {
  it('fault-free: one transaction holds the claim, the write and the answer', async () => {
    const { call } = await fresh(c);
    proxy.reset();
    const res = await worker.request(call.path, call.request);
    expect(res.status, await res.clone().text()).toBe(201);
    const writes = proxy.writes;
    expect(writes.length).toBeGreaterThanOrEqual(3);
    expect(new Set(writes.map((w) => `${w.connection}:${w.transaction}`)).size, 'one transaction').toBe(1);
    expect(writes.every((w) => w.status === 'T')).toBe(true);
    expect(writes[0]!.sql).toMatch(/insert into idempotency_keys/i);
    // The kept answer, with the write's audit row in the same statement (docs/audit-log.md).
    expect(writes.at(-1)!.sql).toMatch(/^with audit as \(insert into "audit_events"/i);
    c.writes = writes.length;
  });

  const points = () => [
    ...Array.from({ length: c.writes }, (_, i) => ({
      // The kept answer and COMMIT leave together (request-transaction.ts: one round trip), so a cut after
      // the answer's statement finds the COMMIT on its way: done if the server read it before the cut
      // (a terminated backend has), not done if the reset dropped it; either is all or nothing.
      label: i === 0 ? 'after the claim' : i === c.writes - 1 ? 'after the answer (its COMMIT sent with it)' : `after write ${i + 1}`,
      arm: () => proxy.cutAfterWrites(i + 1, i % 2 === 0 ? 'terminate' : 'reset'),
    })),
    { label: 'at the commit (done, its answer lost)', arm: () => proxy.cutAtCommit() },
  ];

  it('cut at every point: all or nothing, then exactly one resource after retries (at once, and after the abandon window)', async () => {
    expect(c.writes, 'the fault-free run went first').toBeGreaterThanOrEqual(3);
    for (const point of points()) {
      const { clinicId, call } = await fresh(c);
      const callsBefore = providerCalls;
      const keysBefore = providerRefunds.size;
      proxy.reset();
      point.arm();
      const first = await worker.request(call.path, call.request);
      const cut = await proxy.cutSettled();
      expect(cut, `${point.label}: the cut was made`).not.toBeNull();
      const kept = await c.made(clinicId);
      const eitherWay = point.label.startsWith('after the answer');
      const afterCommit = point.label.startsWith('at the commit') || (eitherWay && kept === 1);
      expect(kept, `${point.label}: all or nothing`).toBe(afterCommit ? 1 : 0);
      // Done at the server, the client hears 201 if the COMMIT's answer reached it before the cut (a
      // terminated backend's last bytes still arrive), else 503; not done, always 503.
      if (eitherWay && first.status === 201) expect(afterCommit, point.label).toBe(true);
      else expect(first.status, `${point.label}: ${await first.clone().text()}`).toBe(503);

      proxy.reset();
      const again = await worker.request(call.path, call.request);
      expect(again.status, `${point.label}, the retry: ${await again.clone().text()}`).toBe(201);
      expect(again.headers.get('idempotent-replayed'), point.label).toBe(afterCommit ? 'true' : null);
      expect(await c.made(clinicId), `${point.label}, the retry`).toBe(1);

      // After the abandon window (the kept record made as long ago): the answer is replayed, nothing runs again.
      await t.db.execute(
        sql`update idempotency_keys set created_at = created_at - ${`${IDEMPOTENCY_ABANDONED_MS + 60_000} milliseconds`}::interval where clinic_id = ${clinicId}`,
      );
      const later = await worker.request(call.path, call.request);
      expect(later.status, `${point.label}, after the abandon window`).toBe(201);
      expect(later.headers.get('idempotent-replayed')).toBe('true');
      expect(await later.json()).toEqual(await again.json());
      expect(await c.made(clinicId), `${point.label}, after the abandon window`).toBe(1);
      if (c.name.startsWith('a refund')) {
        // The rolled-back first run may have called the provider; the retry's call carries the same
        // provider idempotency key, so the provider made one refund, the one stored.
        expect(providerRefunds.size - keysBefore, `${point.label}: refunds at the provider`).toBe(1);
        expect(providerCalls - callsBefore, point.label).toBeLessThanOrEqual(2);
        const [row] = await t.db.select().from(refunds).where(eq(refunds.clinicId, clinicId));
        expect([...providerRefunds.values()].some((r) => r.processorRefundId === row!.processorRefundId)).toBe(true);
      }
    }
  });
});
