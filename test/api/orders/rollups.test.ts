// The clinic rollups (migration 0012) against a from-scratch recount: after a random sequence of
// order lifecycle operations and direct writes to every table the rollups count (orders, payments,
// refunds, refund requests, patients, enrollments, programs; inserts, updates and deletes), the rows
// the triggers kept equal recount_clinic_rollups' rebuild, and the reads built on them equal the
// same figures counted from the rows (the queries the reads ran before the rollups).
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { enrollments, patients, payments, refundRequests, refunds } from '../../../drizzle/schema';
import {
  applyPlatformEvent,
  createOrder,
  dashboardOverview,
  listCustomers,
  listOrders,
  needsAttention,
  orderStats,
  orderSummary,
} from '../../../src/modules/orders';
import type { PlatformEvent } from '../../../src/modules/orders/orders/lifecycle/events';
import { rowsOf } from '../../../src/platform/db/sql';
import { useTestApp } from '../../helpers/app';
import { makeClinic } from '../../helpers/factories';
import { makeProgram } from '../../helpers/program-fixtures';

const t = useTestApp();
const DAY = 86_400_000;

const EVENTS: PlatformEvent[] = [
  { event: 'payment.succeeded' },
  { event: 'payment.failed', failureReason: 'card_declined' },
  { event: 'order.doctor_approved' },
  { event: 'order.doctor_denied' },
  { event: 'order.sent_to_pharmacy' },
  { event: 'order.shipped', carrier: 'ups', trackingNumber: '1Z' },
  { event: 'order.delivered' },
  { event: 'order.cancelled' },
  { event: 'lab.kit_delivered' },
  { event: 'lab.results_available' },
];
const STATES = [null, 'ca', 'TX', 'ny', 'WA'];
const ORDER_STATUSES = ['pending_payment', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded', 'payment_failed', 'doctor_approved'];

interface World {
  clinics: string[];
  programs: string[][];
  patients: string[][];
  orders: string[][];
}

const pick = <T>(list: T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined);

/** Runs one operation; an operation the data model refuses (a foreign key, a transition) changes nothing. */
async function run(w: World, op: number, i: number, j: number, k: number, now: number) {
  const c = i % w.clinics.length;
  const clinicId = w.clinics[c]!;
  const at = new Date(now - (j % (40 * DAY)) + (k % DAY));
  const order = pick(w.orders[c]!, j);
  const attempt = (work: (tx: typeof t.db) => Promise<unknown>) => t.db.transaction(async (tx) => work(tx as never)).catch(() => undefined);
  switch (op) {
    case 0: {
      const patientId = pick(w.patients[c]!, j);
      if (!patientId) return;
      const state = STATES[k % STATES.length];
      await attempt(async (tx) => {
        const created = await createOrder(tx as never, clinicId, {
          patientId,
          programId: pick(w.programs[c]!, k) ?? null,
          items: [{ productName: 'Item', unitPriceCents: 5_000 + (k % 20_000), quantity: 1 + (j % 2), pharmacyCostCents: 2_000 }],
          taxCents: k % 3 ? 300 : 0,
          shippingCents: j % 2 ? 500 : 0,
          shippingAddress: state ? { address: '1 Main St', city: 'Town', state, zipCode: '10001' } : null,
          lab: k % 4 === 0 ? { isLabGated: true } : null,
        });
        if (j % 3 === 0) await tx.execute(sql`update orders set created_at = ${at.toISOString()}::timestamptz where id = ${created.id}`);
        w.orders[c]!.push(created.id);
      });
      return;
    }
    case 1:
    case 2:
      if (order) await attempt((tx) => applyPlatformEvent(tx as never, clinicId, order, EVENTS[k % EVENTS.length]!));
      return;
    case 3: // a payment attempt written directly (the seeds' and fixtures' way), or one changed or removed
      if (!order) return;
      if (k % 3 === 0)
        await attempt((tx) =>
          tx.insert(payments).values({
            clinicId,
            orderId: order,
            status: k % 2 ? 'failed' : 'succeeded',
            amountCents: 1_000,
            failureReason: 'insufficient_funds',
            createdAt: at,
            failedAt: k % 2 ? at : null,
          }),
        );
      else if (k % 3 === 1)
        await attempt((tx) =>
          tx.execute(
            sql`update payments set status = ${k % 2 ? 'failed' : 'succeeded'} where id = (select id from payments where order_id = ${order} order by created_at desc limit 1)`,
          ),
        );
      else
        await attempt((tx) =>
          tx.execute(sql`delete from payments where id = (select id from payments where order_id = ${order} order by created_at limit 1)`),
        );
      return;
    case 4: // refunds: issued (with the order refunded), failed, changed, deleted
      if (!order) return;
      if (k % 4 < 2)
        await attempt(async (tx) => {
          await tx
            .insert(refunds)
            .values({ clinicId, orderId: order, amountCents: 500 + (k % 5_000), status: k % 4 === 0 ? 'succeeded' : 'failed' });
          if (k % 4 === 0) await tx.execute(sql`update orders set status = 'refunded', refunded_at = now() where id = ${order}`);
        });
      else if (k % 4 === 2)
        await attempt((tx) =>
          tx.execute(
            sql`update refunds set status = case when status = 'succeeded' then 'failed' else 'succeeded' end
              where id = (select id from refunds where clinic_id = ${clinicId} order by id offset ${j % 3} limit 1)`,
          ),
        );
      else
        await attempt((tx) =>
          tx.execute(sql`delete from refunds where id = (select id from refunds where clinic_id = ${clinicId} order by id limit 1)`),
        );
      return;
    case 5: // refund requests
      if (!order) return;
      if (k % 3 === 0) await attempt((tx) => tx.insert(refundRequests).values({ clinicId, orderId: order, reason: 'r' }));
      else if (k % 3 === 1)
        await attempt((tx) =>
          tx.execute(sql`update refund_requests set status = ${k % 2 ? 'approved' : 'denied'} where order_id = ${order}`),
        );
      else
        await attempt((tx) =>
          tx.execute(sql`delete from refund_requests where id = (select id from refund_requests where order_id = ${order} limit 1)`),
        );
      return;
    case 6: // an order's counted columns changed directly
      if (!order) return;
      await attempt((tx) =>
        tx.execute(sql`update orders set
          status = ${ORDER_STATUSES[k % ORDER_STATUSES.length]!},
          paid_at = case when ${k % 2 === 0} then coalesce(paid_at, now()) else null end,
          shipping_state = ${STATES[j % STATES.length] ?? null},
          program_id = ${pick(w.programs[c]!, k) ?? null},
          created_at = case when ${j % 2 === 0} then ${at.toISOString()}::timestamptz else created_at end
          where id = ${order}`),
      );
      return;
    case 7: // an order deleted with its parts
      if (!order || k % 3) return;
      await attempt(async (tx) => {
        for (const table of ['refunds', 'ledger_entries', 'disputes', 'payouts'])
          await tx.execute(sql`delete from ${sql.identifier(table)} where order_id = ${order}`);
        await tx.execute(sql`delete from orders where id = ${order}`);
        w.orders[c] = w.orders[c]!.filter((id) => id !== order);
      });
      return;
    case 8: // patients and enrollments
      if (k % 4 === 0) {
        const [p] = await t.db
          .insert(patients)
          .values({ clinicId, firstName: 'Pat', lastName: `P${j}`, email: `p-${crypto.randomUUID()}@example.test`, createdAt: at })
          .returning();
        w.patients[c]!.push(p!.id);
      } else if (k % 4 === 1) {
        const patientId = pick(w.patients[c]!, j);
        const programId = pick(w.programs[c]!, k);
        if (patientId && programId)
          await attempt((tx) =>
            tx
              .insert(enrollments)
              .values({ clinicId, patientId, programId, status: j % 2 ? 'active' : 'paused', chargeAmountCents: 1, netAmountCents: 1 }),
          );
      } else if (k % 4 === 2) {
        const patientId = pick(w.patients[c]!, j);
        if (patientId)
          await attempt((tx) =>
            tx.execute(
              sql`update enrollments set status = case when status = 'active' then 'cancelled' else 'active' end where patient_id = ${patientId}`,
            ),
          );
      } else {
        const patientId = pick(w.patients[c]!, j);
        if (!patientId) return;
        await attempt(async (tx) => {
          await tx.execute(sql`delete from patients where id = ${patientId}`);
          w.patients[c] = w.patients[c]!.filter((id) => id !== patientId);
        });
      }
      return;
    case 9: {
      // a program deleted (its orders' program_id set null), when nothing else holds it
      const programId = pick(w.programs[c]!, k);
      if (!programId || k % 3) return;
      await attempt(async (tx) => {
        await tx.execute(sql`delete from programs where id = ${programId}`);
        w.programs[c] = w.programs[c]!.filter((id) => id !== programId);
      });
      return;
    }
  }
}

const ROLLUP_ORDER = sql`order by clinic_id, dim, key`;

/** The clinic's non-zero rollup rows and its facts, as kept. */
async function snapshot(clinicId: string) {
  const rollups = await rowsOf<Record<string, unknown>>(
    t.db,
    sql`select * from clinic_rollups r where clinic_id = ${clinicId}
      and (orders, paid_orders, gross_cents, refunded_orders, refunded_cents, kept_brand_cents, kept_pharmacy_cents,
        kept_doctor_cents, kept_processor_cents, kept_platform_cents, kept_tax_cents, kept_shipping_cents,
        in_progress_orders, attention_orders, refund_requests, patients, active_patients) <> (0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0)
      ${ROLLUP_ORDER}`,
  );
  const facts = await rowsOf(t.db, sql`select * from order_rollup_facts where clinic_id = ${clinicId} order by order_id`);
  const patientFacts = await rowsOf(t.db, sql`select * from patient_rollup_facts where clinic_id = ${clinicId} order by patient_id`);
  return { rollups, facts, patientFacts };
}

/** GET /orders/stats's figures counted from the rows (the statement the read ran before the rollups). */
async function statsFromRows(clinicId: string, from: Date | null, to: Date | null) {
  const [row] = await rowsOf<Record<string, string>>(
    t.db,
    sql`select count(*) as "totalOrders", count(*) filter (where o.paid_at is not null) as "paidOrders", count(r.order_id) as "refundedOrders",
      coalesce(sum(o.total_cents) filter (where o.paid_at is not null), 0) as gross, coalesce(sum(r.amount_cents), 0) as refunded,
      coalesce(sum(o.brand_amount_cents) filter (where o.paid_at is not null and r.order_id is null), 0) as brand,
      coalesce(sum(o.tax_cents) filter (where o.paid_at is not null and r.order_id is null), 0) as tax
    from orders o left join refunds r on r.order_id = o.id and r.clinic_id = ${clinicId} and r.status = 'succeeded'
    where o.clinic_id = ${clinicId}
      and (${from?.toISOString() ?? null}::timestamptz is null or o.created_at >= ${from?.toISOString() ?? null}::timestamptz)
      and (${to?.toISOString() ?? null}::timestamptz is null or o.created_at <= ${to?.toISOString() ?? null}::timestamptz)`,
  );
  const n = (v: string | undefined) => Number(v ?? 0);
  return {
    totalOrders: n(row?.totalOrders),
    paidOrders: n(row?.paidOrders),
    refundedOrders: n(row?.refundedOrders),
    grossSales: n(row?.gross) / 100,
    refundedAmount: n(row?.refunded) / 100,
    brandEarnings: n(row?.brand) / 100,
    tax: n(row?.tax) / 100,
  };
}

async function countsFromRows(clinicId: string, from: Date, to: Date) {
  const [row] = await rowsOf<Record<string, string>>(
    t.db,
    sql`select
      (select count(*) from orders where clinic_id = ${clinicId}) as orders,
      (select count(*) from patients where clinic_id = ${clinicId}) as patients,
      (select count(*) from patients where clinic_id = ${clinicId} and created_at >= ${from.toISOString()}::timestamptz and created_at <= ${to.toISOString()}::timestamptz) as new_patients,
      (select count(distinct patient_id) from enrollments where clinic_id = ${clinicId} and status = 'active') as active,
      (select count(*) from refund_requests where clinic_id = ${clinicId} and status = 'pending') as pending_requests,
      (select count(*) from payments f join orders o on o.id = f.order_id and o.clinic_id = ${clinicId}
        where f.clinic_id = ${clinicId} and f.status = 'failed' and o.status not in ('cancelled', 'refunded')
          and not exists (select 1 from payments later where later.clinic_id = ${clinicId} and later.order_id = f.order_id
            and (later.created_at > f.created_at or (later.created_at = f.created_at and later.id > f.id)))) as attention`,
  );
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
}

describe('clinic rollups', () => {
  it('equal a from-scratch recount, and the reads equal counting the rows, after random lifecycle operations and direct writes', async () => {
    const world: World = { clinics: [], programs: [], patients: [], orders: [] };
    for (let c = 0; c < 2; c++) {
      const clinic = await makeClinic(t.db);
      world.clinics.push(clinic.id);
      world.programs.push([(await makeProgram(t.db, clinic.id)).id, (await makeProgram(t.db, clinic.id)).id]);
      world.patients.push([]);
      world.orders.push([]);
    }
    // Creations weigh 5 in 14, so the clinics keep a few dozen orders for the other operations.
    const op = fc.record({ op: fc.integer({ min: 0, max: 13 }).map((n) => (n > 9 ? 0 : n)), i: fc.nat(), j: fc.nat(), k: fc.nat() });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), fc.nat({ max: 30 * DAY }), async (ops, offset) => {
        const now = Date.now();
        for (let c = 0; c < 2; c++) {
          // A patient to order for, so most sequences create orders.
          const [p] = await t.db
            .insert(patients)
            .values({ clinicId: world.clinics[c]!, firstName: 'Pat', lastName: 'Seed', email: `p-${crypto.randomUUID()}@example.test` })
            .returning();
          world.patients[c]!.push(p!.id);
        }
        for (const o of ops) await run(world, o.op, o.i, o.j, o.k, now);
        for (const clinicId of world.clinics) {
          const kept = await snapshot(clinicId);
          await t.db.execute(sql`select recount_clinic_rollups(${clinicId})`);
          expect(kept).toEqual(await snapshot(clinicId));

          // The reads against the rows.
          const from = new Date(now - offset - 123_457);
          const to = new Date(now + (offset % DAY));
          for (const [a, b] of [
            [null, null],
            [from, to],
            [from, null],
            [null, to],
          ] as [Date | null, Date | null][]) {
            const stats = await orderStats(t.db, clinicId, {
              ...(a ? { startDate: a.toISOString() } : {}),
              ...(b ? { endDate: b.toISOString() } : {}),
            });
            const expected = await statsFromRows(clinicId, a, b);
            expect({ ...stats, window: undefined, fees: stats.fees.tax, netSales: undefined, averageOrderValue: undefined }).toMatchObject({
              totalOrders: expected.totalOrders,
              paidOrders: expected.paidOrders,
              refundedOrders: expected.refundedOrders,
              grossSales: expected.grossSales,
              refundedAmount: expected.refundedAmount,
              brandEarnings: expected.brandEarnings,
              fees: expected.tax,
            });
          }
          const { window: _w1, ...summary } = await orderSummary(t.db, clinicId, {});
          const { window: _w2, ...counted } = await orderSummary(t.db, clinicId, { startDate: '1970-01-01' });
          expect(summary).toEqual(counted);
          const rows = await countsFromRows(clinicId, new Date(now - 30 * DAY), new Date(now));
          expect((await needsAttention(t.db, clinicId)).count).toBe(rows.attention);
          expect((await listOrders(t.db, clinicId, { page: 1, limit: 1 })).pagination.total).toBe(rows.orders);
          // Pages start from the day rollups: the same pages as an offset over every order.
          const newestFirst = await rowsOf<{ id: string }>(
            t.db,
            sql`select id from orders where clinic_id = ${clinicId} order by created_at desc, id desc`,
          );
          for (const page of [1, 2, 3, 5, 9, 40]) {
            const listed = await listOrders(t.db, clinicId, { page, limit: 3 });
            expect(listed.data.map((o) => o.id)).toEqual(newestFirst.slice((page - 1) * 3, page * 3).map((r) => r.id));
          }
          expect((await listCustomers(t.db, clinicId, { page: 1, limit: 1 })).pagination.total).toBe(rows.patients);
          const overview = await dashboardOverview(t.db, clinicId, new Date(now));
          expect(overview.orders.total).toBe(rows.orders);
          expect(overview.patients).toEqual({ total: rows.patients, active: rows.active, newLast30Days: rows.new_patients });
          expect(overview.pendingActions.failedPayments).toBe(rows.attention);
          expect(overview.pendingActions.refundRequests).toBe(rows.pending_requests);
        }
      }),
      { numRuns: Number(process.env.ROLLUP_RUNS ?? 12), endOnFailure: true }, // the world is kept between runs: no shrinking,
    );
  }, 120_000);
});
