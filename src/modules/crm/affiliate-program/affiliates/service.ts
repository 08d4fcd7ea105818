// The program's affiliates (docs/affiliates.md): the list with referral counts, tier and commission
// totals, and the update of one affiliate's overrides and payout details.
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type AffiliateStatus, affiliates } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { Queryable } from '../../../../platform/db/client';
import { isoTimestamp, rowsOf } from '../../../../platform/db/sql';
import { type PageQuery, pageOffset, paginate } from '../../../../platform/http/pagination';
import { notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { centsToAmount } from '../../../../platform/values/money';
import { fromHundredths, toHundredths } from '../rules';
import { invalid, percentProblems, programSettings } from '../service';
import type { AffiliateData, UpdateAffiliateBody } from './schemas';

const iso = (column: string) => isoTimestamp(sql.raw(column));

interface AffiliateRow {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  referralCode: string;
  status: AffiliateStatus;
  firstOrderRateHundredths: number | null;
  commissionRateHundredths: number | null;
  payoutContactMethod: string | null;
  payoutNotes: string | null;
  joinedAt: string;
  createdAt: string;
  referralCount: number;
  activeReferralCount: number;
  tierId: string | null;
  tierLabel: string | null;
  tierHundredths: number | null;
  earnedCents: string | number;
  unpaidCents: string | number;
  paidCents: string | number;
  total: number;
}

/** SQL: whether referral `r`'s patient has an active enrollment (an active referral). */
export const ACTIVE_REFERRAL = sql.raw(
  `exists (select 1 from enrollments e where e.clinic_id = r.clinic_id and e.patient_id = r.patient_id and e.status = 'active')`,
);

/**
 * Affiliates of the clinic with their referral counts, best tier and commission totals. The page is
 * chosen first on the (clinic_id, created_at, id) index (with its total), then only its rows are
 * aggregated.
 */
function affiliateSelect(clinicId: string, filter: SQL, limit: number, offset: number) {
  return sql`
    with page as (
      select a.id, count(*) over()::int as total
      from affiliates a where a.clinic_id = ${clinicId} and ${filter}
      order by a.created_at desc, a.id desc limit ${limit} offset ${offset}
    )
    select a.id, a.first_name as "firstName", a.last_name as "lastName", a.email, a.referral_code as "referralCode", a.status,
      a.first_order_rate_hundredths as "firstOrderRateHundredths", a.commission_rate_hundredths as "commissionRateHundredths",
      a.payout_contact_method as "payoutContactMethod", a.payout_notes as "payoutNotes",
      ${iso('a.joined_at')} as "joinedAt", ${iso('a.created_at')} as "createdAt",
      ref.referrals as "referralCount", ref.active as "activeReferralCount",
      tr.id as "tierId", tr.label as "tierLabel", tr.percentage_hundredths as "tierHundredths",
      cm.earned as "earnedCents", cm.unpaid as "unpaidCents", cm.paid as "paidCents",
      page.total
    from page
    join affiliates a on a.id = page.id
    cross join lateral (
      select count(*)::int as referrals, (count(*) filter (where ${ACTIVE_REFERRAL}))::int as active
      from affiliate_referrals r where r.clinic_id = a.clinic_id and r.affiliate_id = a.id
    ) ref
    left join lateral (
      select t.id, t.label, t.percentage_hundredths from affiliate_tiers t
      where t.clinic_id = a.clinic_id and t.min_active_referrals <= ref.active
      order by t.min_active_referrals desc limit 1
    ) tr on true
    cross join lateral (
      select coalesce(sum(c.amount_cents) filter (where c.status <> 'excluded'), 0)::bigint as earned,
             coalesce(sum(c.amount_cents) filter (where c.status in ('earned', 'included')), 0)::bigint as unpaid,
             coalesce(sum(c.amount_cents) filter (where c.status = 'paid'), 0)::bigint as paid
      from affiliate_commissions c where c.clinic_id = a.clinic_id and c.affiliate_id = a.id
    ) cm
    order by a.created_at desc, a.id desc`;
}

function toAffiliate(row: Omit<AffiliateRow, 'total'>): AffiliateData {
  const orNull = (v: number | null) => (v === null ? null : fromHundredths(v));
  return {
    id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email,
    referralCode: row.referralCode,
    status: row.status,
    firstOrderRate: orNull(row.firstOrderRateHundredths),
    commissionRate: orNull(row.commissionRateHundredths),
    payoutContactMethod: row.payoutContactMethod,
    payoutNotes: row.payoutNotes,
    joinedAt: row.joinedAt,
    referralCount: row.referralCount,
    activeReferralCount: row.activeReferralCount,
    tier: row.tierId ? { id: row.tierId, label: row.tierLabel!, percentage: fromHundredths(row.tierHundredths!) } : null,
    earnedTotal: centsToAmount(Number(row.earnedCents)),
    unpaidTotal: centsToAmount(Number(row.unpaidCents)),
    paidTotal: centsToAmount(Number(row.paidCents)),
    createdAt: row.createdAt,
  };
}

export async function listAffiliates({ db, clinicId }: HandlerContext, query: PageQuery) {
  const rows = await rowsOf<AffiliateRow>(db, affiliateSelect(clinicId, sql`true`, query.limit, pageOffset(query)));
  const page = await paginate(query, rows, () => db.$count(affiliates, eq(affiliates.clinicId, clinicId)));
  return { data: page.rows.map(toAffiliate), pagination: page.pagination };
}

async function readAffiliate(db: Queryable, clinicId: string, id: string): Promise<AffiliateData> {
  const [row] = await rowsOf<AffiliateRow>(db, affiliateSelect(clinicId, sql`a.id = ${id}`, 1, 0));
  if (!row) throw notFound('Affiliate');
  return toAffiliate(row);
}

/**
 * A partial update of one affiliate: rate overrides (in the program's current mode; percentage
 * rates 0-100) and payout details; null clears a field.
 */
export async function updateAffiliate(ctx: HandlerContext, id: string, body: UpdateAffiliateBody): Promise<AffiliateData> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound('Affiliate');
  return db.transaction(async (tx) => {
    // Locked like PUT locks it, so a concurrent mode change cannot slip between the check and the write.
    const program = await programSettings(tx, clinicId, true);
    const changes: Partial<typeof affiliates.$inferInsert> = { updatedAt: now };
    if (body.firstOrderRate !== undefined)
      changes.firstOrderRateHundredths = body.firstOrderRate === null ? null : toHundredths(body.firstOrderRate);
    if (body.commissionRate !== undefined)
      changes.commissionRateHundredths = body.commissionRate === null ? null : toHundredths(body.commissionRate);
    if (body.payoutContactMethod !== undefined) changes.payoutContactMethod = body.payoutContactMethod;
    if (body.payoutNotes !== undefined) changes.payoutNotes = body.payoutNotes === '' ? null : body.payoutNotes;
    const problems = percentProblems(program.commissionMode, [
      ['body.firstOrderRate', changes.firstOrderRateHundredths],
      ['body.commissionRate', changes.commissionRateHundredths],
    ]);
    if (problems.length) throw invalid(problems);
    const [updated] = await tx
      .update(affiliates)
      .set(changes)
      .where(and(eq(affiliates.clinicId, clinicId), eq(affiliates.id, id)))
      .returning({ id: affiliates.id });
    if (!updated) throw notFound('Affiliate');
    return readAffiliate(tx, clinicId, id);
  });
}
