import { sql } from 'drizzle-orm';
import type { DisputeStatus, LedgerEntryType } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { isoTimestamp, rowsOf } from '../../../platform/db/sql';
import { moneyMovements } from '../../../platform/providers/payments';
import { centsToAmount } from '../../../platform/values/money';
import { availableSum, ORDER_INCOME_TYPES } from '../ledger/sums';
import type { BalanceData, DisputesData } from './schemas';

const RECENT_ACTIVITY = 10;
const DISPUTE_HISTORY = 100;
const iso = (column: string) => isoTimestamp(sql.raw(column));
const incomeTypes = sql.raw(ORDER_INCOME_TYPES.map((t) => `'${t}'`).join(', '));

interface BalanceRow {
  available: number;
  received: number;
  withdrawn: number;
  held: number;
  released: number;
  forfeited: number;
  heldCount: number;
  lastUpdated: string | null;
  activity: {
    id: number;
    type: LedgerEntryType;
    amountCents: number;
    orderId: string | null;
    payoutId: string | null;
    refundId: string | null;
    disputeId: string | null;
    description: string | null;
    createdAt: string;
  }[];
}

/** Every figure of GET /payouts/balance in one statement over the clinic's ledger. */
export async function getBalance(ctx: HandlerContext): Promise<BalanceData> {
  const { db, clinicId } = ctx;
  const payments = moneyMovements(ctx.payments);
  const [row] = await rowsOf<BalanceRow>(
    db,
    sql`
    select
      ${availableSum} as available,
      coalesce(sum(amount_cents) filter (where type in (${incomeTypes})), 0)::float8 as received,
      coalesce(-sum(amount_cents) filter (where type = 'payout'), 0)::float8 as withdrawn,
      coalesce(-sum(amount_cents) filter (where type = 'reserve_hold'), 0)::float8 as held,
      coalesce(sum(amount_cents) filter (where type = 'reserve_release'), 0)::float8 as released,
      coalesce(-sum(amount_cents) filter (where type = 'reserve_forfeit'), 0)::float8 as forfeited,
      (count(*) filter (where l.type = 'reserve_hold' and not exists (
        select 1 from ledger_entries r
        where r.clinic_id = l.clinic_id and r.order_id = l.order_id and r.type in ('reserve_release', 'reserve_forfeit')
      )))::int as "heldCount",
      ${iso('max(l.created_at)')} as "lastUpdated",
      (select coalesce(json_agg(json_build_object(
        'id', a.id, 'type', a.type, 'amountCents', a.amount_cents, 'orderId', a.order_id, 'payoutId', a.payout_id,
        'refundId', a.refund_id, 'disputeId', a.dispute_id, 'description', a.description, 'createdAt', ${iso('a.created_at')}
      ) order by a.created_at desc, a.id desc), '[]'::json)
      from (select * from ledger_entries where clinic_id = ${clinicId} order by created_at desc, id desc limit ${RECENT_ACTIVITY}) a) as activity
    from ledger_entries l
    where l.clinic_id = ${clinicId}`,
  );
  const r = row!;
  const available = Number(r.available);
  const reserveHeld = Number(r.held) - Number(r.released) - Number(r.forfeited);
  const withdrawableCents = Math.max(available, 0);
  const isConnected = payments.payoutsConnected(clinicId);
  const processor = await payments.balance({
    clinicId,
    ledger: { availableCents: withdrawableCents, pendingCents: Math.max(reserveHeld, 0) },
  });
  const heldOwedCents = isConnected ? 0 : withdrawableCents;
  return {
    balance: {
      totalReceived: centsToAmount(Number(r.received)),
      totalWithdrawn: centsToAmount(Number(r.withdrawn)),
      currentBalance: centsToAmount(available + reserveHeld),
      lastUpdated: r.lastUpdated,
    },
    processorBalance: { available: centsToAmount(processor.availableCents), pending: centsToAmount(processor.pendingCents) },
    withdrawable: centsToAmount(withdrawableCents),
    reserve: {
      totalHeld: centsToAmount(Number(r.held)),
      totalReleased: centsToAmount(Number(r.released)),
      totalForfeited: centsToAmount(Number(r.forfeited)),
      heldCount: Number(r.heldCount),
    },
    heldBalance: { heldOwed: centsToAmount(heldOwedCents), hasHeldBalance: heldOwedCents > 0, isConnected },
    recentActivity: r.activity.map((a) => ({
      id: Number(a.id),
      type: a.type,
      amount: centsToAmount(a.amountCents),
      orderId: a.orderId,
      payoutId: a.payoutId,
      refundId: a.refundId,
      disputeId: a.disputeId,
      description: a.description,
      createdAt: a.createdAt,
    })),
  };
}

interface DisputesRow {
  total: number;
  needsResponse: number;
  underReview: number;
  won: number;
  lost: number;
  atRisk: number;
  amountLost: number;
  history: {
    id: string;
    orderId: string;
    orderNumber: string;
    amountCents: number;
    status: DisputeStatus;
    reason: string | null;
    evidenceDueAt: string | null;
    resolvedAt: string | null;
    createdAt: string;
  }[];
}

/** Counts and sums of the clinic's disputes and the latest 100 of them, in one statement. */
export async function getDisputes(ctx: HandlerContext): Promise<DisputesData> {
  const { db, clinicId } = ctx;
  const [row] = await rowsOf<DisputesRow>(
    db,
    sql`
    select
      count(*)::int as total,
      (count(*) filter (where status = 'needs_response'))::int as "needsResponse",
      (count(*) filter (where status = 'under_review'))::int as "underReview",
      (count(*) filter (where status = 'won'))::int as won,
      (count(*) filter (where status = 'lost'))::int as lost,
      coalesce(sum(amount_cents) filter (where status in ('needs_response', 'under_review')), 0)::float8 as "atRisk",
      coalesce(sum(amount_cents) filter (where status = 'lost'), 0)::float8 as "amountLost",
      (select coalesce(json_agg(json_build_object(
        'id', h.id, 'orderId', h.order_id, 'orderNumber', h.order_number, 'amountCents', h.amount_cents, 'status', h.status,
        'reason', h.reason, 'evidenceDueAt', ${iso('h.evidence_due_at')}, 'resolvedAt', ${iso('h.resolved_at')}, 'createdAt', ${iso('h.created_at')}
      ) order by h.created_at desc, h.id desc), '[]'::json)
      from (
        select d.*, o.order_number from disputes d join orders o on o.id = d.order_id and o.clinic_id = d.clinic_id
        where d.clinic_id = ${clinicId} order by d.created_at desc, d.id desc limit ${DISPUTE_HISTORY}
      ) h) as history
    from disputes where clinic_id = ${clinicId}`,
  );
  const r = row!;
  const open = Number(r.needsResponse) + Number(r.underReview);
  return {
    summary: {
      total: Number(r.total),
      open,
      needsResponse: Number(r.needsResponse),
      underReview: Number(r.underReview),
      won: Number(r.won),
      lost: Number(r.lost),
      amountAtRisk: centsToAmount(Number(r.atRisk)),
      amountLost: centsToAmount(Number(r.amountLost)),
    },
    history: r.history.map((h) => ({
      id: h.id,
      orderId: h.orderId,
      orderNumber: h.orderNumber,
      amount: centsToAmount(h.amountCents),
      status: h.status,
      reason: h.reason,
      evidenceDueAt: h.evidenceDueAt,
      resolvedAt: h.resolvedAt,
      createdAt: h.createdAt,
    })),
  };
}
