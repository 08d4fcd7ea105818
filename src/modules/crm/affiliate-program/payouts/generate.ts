// Generating affiliate payouts (docs/affiliates.md, "Commissions" and "Payouts"): commissions computed
// from referred patients' paid orders, grouped into payouts for the last complete period.
import { sql } from 'drizzle-orm';
import { affiliateCommissions, affiliatePayouts } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { Database, Transaction } from '../../../../platform/db/client';
import { isoTimestamp, rowsOf } from '../../../../platform/db/sql';
import { conflict } from '../../../../platform/values/errors';
import { centsToAmount } from '../../../../platform/values/money';
import { ACTIVE_REFERRAL } from '../affiliates/service';
import { bestTier, commissionCents, lastCompletePeriod, resolveRate, type Tier } from '../rules';
import { programSettings } from '../service';
import { readPayouts } from './list';
import type { GenerateResult } from './schemas';

const iso = (column: string) => isoTimestamp(sql.raw(column));

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

/** POST /affiliate-program/payouts/generate for the request's clinic, at the request's time (generatePayouts). */
export const generateAffiliatePayouts = (ctx: HandlerContext): Promise<GenerateResult> => generatePayouts(ctx.db, ctx.clinicId, ctx.now());

/**
 * POST /affiliate-program/payouts/generate, in one transaction under the program row's lock (so two
 * calls never interleave):
 * 1. computes a commission for every referred order that earns one (candidateOrders) at the rate
 *    resolveRate gives (override, best tier by active referrals, program) — one per order, ever;
 * 2. groups the affiliate's commissions still unassigned and earned before the end of the last
 *    complete period into one payout for that period, when their sum reaches the minimum payout
 *    threshold (and is above 0); otherwise they carry over.
 * Idempotent per period: an affiliate already paid out for the period gets no second payout, and an
 * order never earns twice, so a second call creates nothing new. Explicit values (not a handler
 * context): the demo seeder runs it at chosen times with fixed ids.
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
