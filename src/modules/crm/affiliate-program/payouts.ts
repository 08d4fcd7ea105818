// Commissions and affiliate payouts (docs/affiliates.md, "Commissions" and "Payouts"): generate computes
// commissions from referred patients' paid orders and groups them into payouts for the last complete
// period; approve, mark-paid and exclude-commissions move a payout through pending -> approved -> paid.
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type AffiliatePayoutStatus, affiliateCommissions, affiliatePayouts } from '../../../../drizzle/schema';
import type { Database, Queryable, Transaction } from '../../../platform/db/client';
import { isoTimestamp, rowsOf } from '../../../platform/db/sql';
import { ApiError, conflict, invalidField, notFound } from '../../../platform/http/errors';
import { isUuid } from '../../../platform/http/ids';
import { centsToAmount } from '../../../platform/http/money';
import { type PageQuery, pageOffset, paginate, pagination } from '../../../platform/http/pagination';
import { bestTier, commissionCents, fromHundredths, lastCompletePeriod, resolveRate, type Tier } from './rules';
import type { CommissionData, GenerateResult, PayoutData } from './schemas';
import { ACTIVE_REFERRAL, programSettings } from './service';

const iso = (column: string) => isoTimestamp(sql.raw(column));
const RESOURCE = 'Affiliate payout';

// ---------- reads ----------

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

export async function listPayouts(db: Database, clinicId: string, query: PageQuery & { status?: AffiliatePayoutStatus }) {
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

async function readPayouts(db: Queryable, clinicId: string, ids: string[]): Promise<PayoutData[]> {
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
export async function listPayoutCommissions(db: Database, clinicId: string, id: string, query: PageQuery) {
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

// ---------- generate ----------

/** Fixed ids for the demo seeder; the API draws random ones. */
export interface GenerateIds {
  commission?(orderId: string): string | undefined;
  payout?(affiliateId: string, periodStart: Date): string | undefined;
}

interface Candidate {
  orderId: string;
  referralId: string;
  affiliateId: string;
  baseCents: number;
  isFirstOrder: boolean;
  paidAt: string;
}

interface AffiliateRates {
  id: string;
  firstOrderRateHundredths: number | null;
  commissionRateHundredths: number | null;
  activeReferrals: number;
}

/**
 * Referred orders not yet commissioned that earn one: the order was paid (paid_at set, not after now)
 * on or after the referral and before referral + commissionDurationMonths (PostgreSQL month
 * arithmetic; no limit when null), is not cancelled or refunded, and its affiliate is not removed.
 * isFirstOrder: the patient's first paid order since the referral (refunded and cancelled ones count
 * as paid for this), so a later order never becomes "first".
 */
function candidateOrders(clinicId: string, now: Date, durationMonths: number | null) {
  const duration =
    durationMonths === null ? sql`true` : sql`paid.paid_at < paid.referred_at + make_interval(months => ${durationMonths}::int)`;
  return sql`
    with ref as (
      select r.id as referral_id, r.affiliate_id, r.patient_id, r.referred_at, r.clinic_id
      from affiliate_referrals r
      join affiliates a on a.id = r.affiliate_id and a.clinic_id = r.clinic_id
      where r.clinic_id = ${clinicId} and a.status <> 'removed'
    ),
    paid as (
      select o.id, o.status, o.refunded_at, o.subtotal_cents - o.discount_cents as base, o.paid_at,
        ref.referral_id, ref.affiliate_id, ref.referred_at,
        row_number() over (partition by ref.referral_id order by o.paid_at, o.id) as n
      from ref join orders o on o.clinic_id = ref.clinic_id and o.patient_id = ref.patient_id
      where o.paid_at is not null and o.paid_at >= ref.referred_at and o.paid_at <= ${now.toISOString()}::timestamptz
    )
    select paid.id as "orderId", paid.referral_id as "referralId", paid.affiliate_id as "affiliateId", paid.base as "baseCents",
      paid.n = 1 as "isFirstOrder", ${iso('paid.paid_at')} as "paidAt"
    from paid
    where paid.status not in ('cancelled', 'refunded') and paid.refunded_at is null and ${duration}
      and not exists (select 1 from affiliate_commissions c where c.order_id = paid.id)
    order by paid.paid_at, paid.id`;
}

const INSERT_BATCH = 1_000;

/**
 * POST /affiliate-program/payouts/generate, in one transaction under the program row's lock (so two
 * calls never interleave):
 * 1. computes a commission for every referred order that earns one (candidateOrders) at the rate
 *    resolveRate gives (override, best tier by active referrals, program) — one per order, ever;
 * 2. groups the affiliate's commissions still unassigned and earned before the end of the last
 *    complete period into one payout for that period, when their sum reaches the minimum payout
 *    threshold (and is above 0); otherwise they carry over.
 * Idempotent per period: an affiliate already paid out for the period gets no second payout, and an
 * order never earns twice, so a second call creates nothing new.
 */
export async function generatePayouts(db: Database, clinicId: string, now: Date, ids: GenerateIds = {}): Promise<GenerateResult> {
  return db.transaction(async (tx) => {
    const program = await programSettings(tx, clinicId, true);
    if (!program.enabled)
      throw conflict('CONFLICT', 'The affiliate program is not enabled (PUT /affiliate-program with affiliateProgramEnabled true)');
    const period = lastCompletePeriod(program.payoutFrequency, now);

    const candidates = (await rowsOf<Candidate>(tx, candidateOrders(clinicId, now, program.commissionDurationMonths))).map((c) => ({
      ...c,
      baseCents: Number(c.baseCents),
    }));
    const created = await insertCommissions(tx, clinicId, candidates, program, ids, now);

    const groups = (
      await rowsOf<{ affiliateId: string; cents: string | number; n: number }>(
        tx,
        sql`
      select c.affiliate_id as "affiliateId", sum(c.amount_cents)::bigint as cents, count(*)::int as n
      from affiliate_commissions c
      where c.clinic_id = ${clinicId} and c.status = 'earned' and c.payout_id is null and c.earned_at < ${period.end.toISOString()}::timestamptz
        and not exists (select 1 from affiliate_payouts p where p.affiliate_id = c.affiliate_id and p.period_start = ${period.start.toISOString()}::timestamptz)
      group by c.affiliate_id
      order by c.affiliate_id`,
      )
    ).map((g) => ({ ...g, cents: Number(g.cents) }));
    const due = groups.filter((g) => g.cents > 0 && g.cents >= program.minimumPayoutThresholdCents);
    const waiting = groups.filter((g) => !due.includes(g));

    let payoutIds: string[] = [];
    if (due.length) {
      const inserted = await tx
        .insert(affiliatePayouts)
        .values(
          due.map((g) => ({
            id: ids.payout?.(g.affiliateId, period.start) ?? crypto.randomUUID(),
            clinicId,
            affiliateId: g.affiliateId,
            periodStart: period.start,
            periodEnd: period.end,
            amountCents: g.cents,
            status: 'pending' as const,
            createdAt: now,
            updatedAt: now,
          })),
        )
        .onConflictDoNothing()
        .returning({ id: affiliatePayouts.id });
      payoutIds = inserted.map((p) => p.id);
      if (payoutIds.length) {
        await tx.execute(sql`
          update affiliate_commissions c set status = 'included', payout_id = p.id
          from affiliate_payouts p
          where p.id in ${payoutIds} and c.clinic_id = ${clinicId} and c.affiliate_id = p.affiliate_id
            and c.status = 'earned' and c.payout_id is null and c.earned_at < ${period.end.toISOString()}::timestamptz`);
      }
    }

    const names = waiting.length
      ? await rowsOf<{ id: string; firstName: string; lastName: string; email: string }>(
          tx,
          sql`
          select a.id, a.first_name as "firstName", a.last_name as "lastName", a.email
          from affiliates a where a.clinic_id = ${clinicId} and a.id in ${waiting.map((w) => w.affiliateId)}`,
        )
      : [];
    const byId = new Map(names.map((n) => [n.id, n]));
    return {
      payoutFrequency: program.payoutFrequency,
      periodStart: period.start.toISOString(),
      periodEnd: period.end.toISOString(),
      commissionsCreated: created.count,
      commissionsAmount: centsToAmount(created.cents),
      payoutsCreated: payoutIds.length,
      payouts: await readPayouts(tx, clinicId, payoutIds),
      carriedOver: waiting.map((w) => ({ affiliate: byId.get(w.affiliateId)!, amount: centsToAmount(w.cents), commissionCount: w.n })),
    };
  });
}

/** Rates of the candidates' affiliates and the clinic's tiers, then one insert per batch; returns what was created. */
async function insertCommissions(
  tx: Transaction,
  clinicId: string,
  candidates: Candidate[],
  program: Awaited<ReturnType<typeof programSettings>>,
  ids: GenerateIds,
  now: Date,
): Promise<{ count: number; cents: number }> {
  if (!candidates.length) return { count: 0, cents: 0 };
  const affiliateIds = [...new Set(candidates.map((c) => c.affiliateId))];
  const [rates, tiers] = [
    await rowsOf<AffiliateRates>(
      tx,
      sql`
      select a.id, a.first_order_rate_hundredths as "firstOrderRateHundredths", a.commission_rate_hundredths as "commissionRateHundredths",
        (select count(*)::int from affiliate_referrals r where r.clinic_id = a.clinic_id and r.affiliate_id = a.id and ${ACTIVE_REFERRAL}) as "activeReferrals"
      from affiliates a where a.clinic_id = ${clinicId} and a.id in ${affiliateIds}`,
    ),
    await rowsOf<Tier>(
      tx,
      sql`
      select t.min_active_referrals as "minActiveReferrals", t.percentage_hundredths as "percentageHundredths"
      from affiliate_tiers t where t.clinic_id = ${clinicId}`,
    ),
  ];
  const byAffiliate = new Map(rates.map((r) => [r.id, r]));
  const rows = candidates.map((c) => {
    const a = byAffiliate.get(c.affiliateId)!;
    const { rateHundredths } = resolveRate(
      {
        mode: program.commissionMode,
        programFirstOrderHundredths: program.firstOrderRateHundredths,
        programDefaultHundredths: program.defaultRateHundredths,
        overrideFirstOrderHundredths: a.firstOrderRateHundredths,
        overrideDefaultHundredths: a.commissionRateHundredths,
        tierHundredths: bestTier(tiers, a.activeReferrals)?.percentageHundredths ?? null,
      },
      c.isFirstOrder,
    );
    return {
      id: ids.commission?.(c.orderId) ?? crypto.randomUUID(),
      clinicId,
      affiliateId: c.affiliateId,
      referralId: c.referralId,
      orderId: c.orderId,
      isFirstOrder: c.isFirstOrder,
      baseAmountCents: Math.max(0, c.baseCents),
      rateHundredths,
      amountCents: commissionCents(program.commissionMode, c.baseCents, rateHundredths),
      status: 'earned' as const,
      earnedAt: new Date(c.paidAt),
      createdAt: now,
    };
  });
  let count = 0;
  let cents = 0;
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    const inserted = await tx
      .insert(affiliateCommissions)
      .values(rows.slice(i, i + INSERT_BATCH))
      .onConflictDoNothing()
      .returning({ amountCents: affiliateCommissions.amountCents });
    count += inserted.length;
    for (const row of inserted) cents += row.amountCents;
  }
  return { count, cents };
}

// ---------- state moves ----------

const illegalTransition = (message: string) => new ApiError(409, 'ILLEGAL_TRANSITION', message);

/** The payout locked for the rest of the transaction, or 404. */
async function lockPayout(tx: Transaction, clinicId: string, id: string) {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await tx
    .select({ id: affiliatePayouts.id, status: affiliatePayouts.status })
    .from(affiliatePayouts)
    .where(and(eq(affiliatePayouts.clinicId, clinicId), eq(affiliatePayouts.id, id)))
    .for('update');
  if (!row) throw notFound(RESOURCE);
  return row;
}

async function readPayout(tx: Queryable, clinicId: string, id: string): Promise<PayoutData> {
  const [payout] = await readPayouts(tx, clinicId, [id]);
  return payout!;
}

/** pending -> approved; any other status answers 409 ILLEGAL_TRANSITION. */
export async function approvePayout(db: Database, clinicId: string, id: string, now: Date): Promise<PayoutData> {
  return db.transaction(async (tx) => {
    const payout = await lockPayout(tx, clinicId, id);
    if (payout.status !== 'pending') throw illegalTransition(`Only a pending payout can be approved; this one is ${payout.status}`);
    await tx.update(affiliatePayouts).set({ status: 'approved', approvedAt: now, updatedAt: now }).where(eq(affiliatePayouts.id, id));
    return readPayout(tx, clinicId, id);
  });
}

/** approved -> paid, with the notes; its included commissions become paid. Otherwise 409 ILLEGAL_TRANSITION. */
export async function markPayoutPaid(
  db: Database,
  clinicId: string,
  id: string,
  notes: string | undefined,
  now: Date,
): Promise<PayoutData> {
  return db.transaction(async (tx) => {
    const payout = await lockPayout(tx, clinicId, id);
    if (payout.status !== 'approved') throw illegalTransition(`Only an approved payout can be marked paid; this one is ${payout.status}`);
    await tx
      .update(affiliatePayouts)
      .set({ status: 'paid', paidAt: now, updatedAt: now, ...(notes !== undefined ? { notes: notes === '' ? null : notes } : {}) })
      .where(eq(affiliatePayouts.id, id));
    await tx
      .update(affiliateCommissions)
      .set({ status: 'paid' })
      .where(
        and(
          eq(affiliateCommissions.clinicId, clinicId),
          eq(affiliateCommissions.payoutId, id),
          eq(affiliateCommissions.status, 'included'),
        ),
      );
    return readPayout(tx, clinicId, id);
  });
}

/**
 * Excludes commissions from a pending payout (409 ILLEGAL_TRANSITION otherwise). Every id must be a
 * commission of this payout (else 400 naming the others, nothing changed); ones already excluded stay
 * so. Excluded commissions keep their payoutId (they are listed with the payout, status excluded) and
 * are never paid; the payout's amount is recomputed from what stays included, in the same transaction.
 */
export async function excludeCommissions(
  db: Database,
  clinicId: string,
  id: string,
  commissionIds: string[],
  now: Date,
): Promise<PayoutData> {
  return db.transaction(async (tx) => {
    const payout = await lockPayout(tx, clinicId, id);
    if (payout.status !== 'pending')
      throw illegalTransition(`Commissions can be excluded only from a pending payout; this one is ${payout.status}`);
    const wanted = [...new Set(commissionIds.map((c) => c.toLowerCase()))];
    const found = await tx
      .select({ id: affiliateCommissions.id })
      .from(affiliateCommissions)
      .where(
        and(eq(affiliateCommissions.clinicId, clinicId), eq(affiliateCommissions.payoutId, id), inArray(affiliateCommissions.id, wanted)),
      );
    const known = new Set(found.map((f) => f.id));
    const strangers = wanted.filter((c) => !known.has(c));
    if (strangers.length) {
      throw invalidField('body.commissionIds', `not commissions of this payout: ${strangers.join(', ')}`);
    }
    await tx
      .update(affiliateCommissions)
      .set({ status: 'excluded' })
      .where(
        and(eq(affiliateCommissions.clinicId, clinicId), eq(affiliateCommissions.payoutId, id), inArray(affiliateCommissions.id, wanted)),
      );
    await tx.execute(sql`
      update affiliate_payouts p set updated_at = ${now.toISOString()}::timestamptz,
        amount_cents = (select coalesce(sum(c.amount_cents), 0) from affiliate_commissions c
                        where c.payout_id = p.id and c.clinic_id = p.clinic_id and c.status = 'included')
      where p.id = ${id} and p.clinic_id = ${clinicId}`);
    return readPayout(tx, clinicId, id);
  });
}
