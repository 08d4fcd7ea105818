// Reads of affiliate payouts (docs/affiliates.md, "Payouts"): the list, one payout, and the
// commissions of a payout.
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type AffiliatePayoutStatus, affiliatePayouts } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { Queryable } from '../../../../platform/db/client';
import { isoTimestamp, rowsOf } from '../../../../platform/db/sql';
import { type PageQuery, pageOffset, paginate, pagination } from '../../../../platform/http/pagination';
import { notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { centsToAmount } from '../../../../platform/values/money';
import { fromHundredths } from '../rules';
import type { CommissionData, PayoutData } from './schemas';

const iso = (column: string) => isoTimestamp(sql.raw(column));
export const RESOURCE = 'Affiliate payout';

interface PayoutRow {
  id: string;
  affiliateId: string;
  firstName: string;
  lastName: string;
  email: string;
  periodStart: string;
  periodEnd: string;
  amountCents: number;
  status: AffiliatePayoutStatus;
  included: number;
  excluded: number;
  approvedAt: string | null;
  paidAt: string | null;
  notes: string | null;
  createdAt: string;
  updatedAt: string;
  total: number;
}

/** Payouts of the clinic matching `filter` (on alias p), newest first; the page is chosen on the index first. */
function payoutSelect(clinicId: string, filter: SQL, limit: number, offset: number) {
  return sql`
    with page as (
      select p.id, count(*) over()::int as total
      from affiliate_payouts p where p.clinic_id = ${clinicId} and ${filter}
      order by p.created_at desc, p.id desc limit ${limit} offset ${offset}
    )
    select p.id, p.affiliate_id as "affiliateId", a.first_name as "firstName", a.last_name as "lastName", a.email,
      ${iso('p.period_start')} as "periodStart", ${iso('p.period_end')} as "periodEnd", p.amount_cents as "amountCents", p.status,
      cc.included, cc.excluded, ${iso('p.approved_at')} as "approvedAt", ${iso('p.paid_at')} as "paidAt", p.notes,
      ${iso('p.created_at')} as "createdAt", ${iso('p.updated_at')} as "updatedAt", page.total
    from page
    join affiliate_payouts p on p.id = page.id
    join affiliates a on a.id = p.affiliate_id and a.clinic_id = p.clinic_id
    cross join lateral (
      select (count(*) filter (where c.status <> 'excluded'))::int as included, (count(*) filter (where c.status = 'excluded'))::int as excluded
      from affiliate_commissions c where c.payout_id = p.id and c.clinic_id = p.clinic_id
    ) cc
    order by p.created_at desc, p.id desc`;
}

function toPayout(row: Omit<PayoutRow, 'total'>): PayoutData {
  return {
    id: row.id,
    affiliate: { id: row.affiliateId, firstName: row.firstName, lastName: row.lastName, email: row.email },
    periodStart: row.periodStart,
    periodEnd: row.periodEnd,
    amount: centsToAmount(row.amountCents),
    status: row.status,
    commissionCount: row.included,
    excludedCommissionCount: row.excluded,
    approvedAt: row.approvedAt,
    paidAt: row.paidAt,
    notes: row.notes,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function listPayouts({ db, clinicId }: HandlerContext, query: PageQuery & { status?: AffiliatePayoutStatus }) {
  const filter = query.status ? sql`p.status = ${query.status}` : sql`true`;
  const rows = await rowsOf<PayoutRow>(db, payoutSelect(clinicId, filter, query.limit, pageOffset(query)));
  const page = await paginate(query, rows, () =>
    db.$count(
      affiliatePayouts,
      and(eq(affiliatePayouts.clinicId, clinicId), query.status ? eq(affiliatePayouts.status, query.status) : undefined),
    ),
  );
  return { data: page.rows.map(toPayout), pagination: page.pagination };
}

export async function readPayouts(db: Queryable, clinicId: string, ids: string[]): Promise<PayoutData[]> {
  if (!ids.length) return [];
  const rows = await rowsOf<PayoutRow>(db, payoutSelect(clinicId, sql`p.id in ${ids}`, ids.length, 0));
  return rows.map(toPayout);
}

interface CommissionRow {
  id: string;
  affiliateId: string;
  payoutId: string | null;
  referralId: string;
  orderId: string;
  orderNumber: string;
  patientId: string;
  patientFirstName: string;
  patientLastName: string;
  isFirstOrder: boolean;
  baseAmountCents: number;
  rateHundredths: number;
  amountCents: number;
  status: CommissionData['status'];
  earnedAt: string;
  createdAt: string;
}

const toCommission = (row: CommissionRow): CommissionData => ({
  id: row.id,
  affiliateId: row.affiliateId,
  payoutId: row.payoutId,
  referralId: row.referralId,
  orderId: row.orderId,
  orderNumber: row.orderNumber,
  patient: { id: row.patientId, firstName: row.patientFirstName, lastName: row.patientLastName },
  isFirstOrder: row.isFirstOrder,
  baseAmount: centsToAmount(row.baseAmountCents),
  rate: fromHundredths(row.rateHundredths),
  amount: centsToAmount(row.amountCents),
  status: row.status,
  earnedAt: row.earnedAt,
  createdAt: row.createdAt,
});

/**
 * The commissions of one payout (included, excluded or paid), by earnedAt then id, paged; the payout
 * is looked up in the same statement so an unknown or other clinic's payout answers 404.
 */
export async function listPayoutCommissions({ db, clinicId }: HandlerContext, id: string, query: PageQuery) {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [found] = await rowsOf<{ total: number; rows: CommissionRow[] }>(
    db,
    sql`
    select
      (select count(*)::int from affiliate_commissions c where c.payout_id = p.id and c.clinic_id = p.clinic_id) as total,
      (select coalesce(json_agg(x order by x."earnedAt", x.id), '[]'::json) from (
        select c.id, c.affiliate_id as "affiliateId", c.payout_id as "payoutId", c.referral_id as "referralId", c.order_id as "orderId",
          o.order_number as "orderNumber", pt.id as "patientId", pt.first_name as "patientFirstName", pt.last_name as "patientLastName",
          c.is_first_order as "isFirstOrder", c.base_amount_cents as "baseAmountCents", c.rate_hundredths as "rateHundredths",
          c.amount_cents as "amountCents", c.status, ${iso('c.earned_at')} as "earnedAt", ${iso('c.created_at')} as "createdAt"
        from affiliate_commissions c
        join orders o on o.id = c.order_id and o.clinic_id = c.clinic_id
        join patients pt on pt.id = o.patient_id and pt.clinic_id = o.clinic_id
        where c.payout_id = p.id and c.clinic_id = p.clinic_id
        order by c.earned_at, c.id limit ${query.limit} offset ${pageOffset(query)}
      ) x) as rows
    from affiliate_payouts p where p.clinic_id = ${clinicId} and p.id = ${id}`,
  );
  if (!found) throw notFound(RESOURCE);
  return { data: found.rows.map(toCommission), pagination: pagination(query, found.total) };
}

export async function readPayout(tx: Queryable, clinicId: string, id: string): Promise<PayoutData> {
  const [payout] = await readPayouts(tx, clinicId, [id]);
  return payout!;
}
