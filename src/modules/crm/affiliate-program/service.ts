// The affiliate program's configuration and its margin estimate (docs/affiliates.md); its affiliates,
// payouts, tax documents and tiers have folders of their own.
// Reads are one statement each; writes run in one transaction.

import { and, eq, isNotNull, or, sql } from 'drizzle-orm';
import type { ProgramState } from '../../../../drizzle/schema';
import { type AffiliateCommissionMode, type AffiliatePayoutFrequency, affiliatePrograms, affiliates } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { isoTimestamp, rowsOf } from '../../../platform/db/sql';
import { conflict, invalidFields } from '../../../platform/values/errors';
import { centsToAmount } from '../../../platform/values/money';
import { type ProductRow, priceProduct, pricingInput, programProductsJson } from '../../catalog';
import { computeFeeBreakdown } from '../../orders';
import { commissionCents, fromHundredths, MAX_PERCENT_HUNDREDTHS, toHundredths } from './rules';
import type { MarginEstimate, ProgramConfig, ProgramConfigBody, TierData } from './schemas';

const iso = (column: string) => isoTimestamp(sql.raw(column));

/** The program as the services read it: stored units (x 100, cents). */
export interface ProgramSettings {
  enabled: boolean;
  commissionMode: AffiliateCommissionMode;
  firstOrderRateHundredths: number;
  defaultRateHundredths: number;
  commissionDurationMonths: number | null;
  cookieWindowDays: number;
  minimumPayoutThresholdCents: number;
  payoutFrequency: AffiliatePayoutFrequency;
  maxAffiliates: number | null;
}

/** What GET answers for a clinic that never saved a configuration (the table's defaults). */
export const DEFAULT_PROGRAM: ProgramSettings = {
  enabled: false,
  commissionMode: 'percentage',
  firstOrderRateHundredths: 0,
  defaultRateHundredths: 0,
  commissionDurationMonths: null,
  cookieWindowDays: 30,
  minimumPayoutThresholdCents: 0,
  payoutFrequency: 'monthly',
  maxAffiliates: null,
};

/** json_build_object arguments of an affiliate_programs row aliased `ap`. */
const programJson = sql.raw(`'enabled', ap.enabled, 'commissionMode', ap.commission_mode,
  'firstOrderRateHundredths', ap.first_order_rate_hundredths, 'defaultRateHundredths', ap.default_rate_hundredths,
  'commissionDurationMonths', ap.commission_duration_months, 'cookieWindowDays', ap.cookie_window_days,
  'minimumPayoutThresholdCents', ap.minimum_payout_threshold_cents, 'payoutFrequency', ap.payout_frequency,
  'maxAffiliates', ap.max_affiliates`);

interface ConfigRow {
  program: (ProgramSettings & { updatedAt: string }) | null;
  tiers: { id: string; minActiveReferrals: number; percentageHundredths: number; label: string; createdAt: string }[];
  affiliateCount: number;
}

export const toTier = (row: ConfigRow['tiers'][number]): TierData => ({
  id: row.id,
  minActiveReferrals: row.minActiveReferrals,
  percentage: fromHundredths(row.percentageHundredths),
  label: row.label,
  createdAt: row.createdAt,
});

/** The tiers of the clinic (alias-free subquery), by minActiveReferrals. */
const tiersJson = (clinicId: string) => sql`(
  select coalesce(json_agg(json_build_object(
    'id', t.id, 'minActiveReferrals', t.min_active_referrals, 'percentageHundredths', t.percentage_hundredths, 'label', t.label,
    'createdAt', ${iso('t.created_at')}) order by t.min_active_referrals), '[]'::json)
  from affiliate_tiers t where t.clinic_id = ${clinicId})`;

async function readConfig(db: Queryable, clinicId: string): Promise<ProgramConfig> {
  const [row] = await rowsOf<ConfigRow>(
    db,
    sql`
    select
      (select json_build_object(${programJson}, 'updatedAt', ${iso('ap.updated_at')}) from affiliate_programs ap where ap.clinic_id = ${clinicId}) as program,
      ${tiersJson(clinicId)} as tiers,
      (select count(*)::int from affiliates a where a.clinic_id = ${clinicId} and a.status <> 'removed') as "affiliateCount"`,
  );
  const program = row!.program ?? DEFAULT_PROGRAM;
  return {
    affiliateProgramEnabled: program.enabled,
    affiliateCommissionMode: program.commissionMode,
    affiliateFirstOrderRate: fromHundredths(program.firstOrderRateHundredths),
    affiliateDefaultRate: fromHundredths(program.defaultRateHundredths),
    affiliateCommissionDurationMonths: program.commissionDurationMonths,
    affiliateCookieWindowDays: program.cookieWindowDays,
    affiliateMinimumPayoutThreshold: centsToAmount(program.minimumPayoutThresholdCents),
    affiliatePayoutFrequency: program.payoutFrequency,
    affiliateMaxCount: program.maxAffiliates,
    isConfigured: row!.program !== null,
    affiliateCount: row!.affiliateCount,
    tiers: row!.tiers.map(toTier),
    updatedAt: row!.program?.updatedAt ?? null,
  };
}

export const getProgramConfig = ({ db, clinicId }: HandlerContext) => readConfig(db, clinicId);

/** The stored program (locked with `for update` when asked), or the defaults when there is none. */
export async function programSettings(db: Queryable, clinicId: string, lock = false): Promise<ProgramSettings & { exists: boolean }> {
  const query = db.select().from(affiliatePrograms).where(eq(affiliatePrograms.clinicId, clinicId));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) return { ...DEFAULT_PROGRAM, exists: false };
  return {
    exists: true,
    enabled: row.enabled,
    commissionMode: row.commissionMode,
    firstOrderRateHundredths: row.firstOrderRateHundredths,
    defaultRateHundredths: row.defaultRateHundredths,
    commissionDurationMonths: row.commissionDurationMonths,
    cookieWindowDays: row.cookieWindowDays,
    minimumPayoutThresholdCents: row.minimumPayoutThresholdCents,
    payoutFrequency: row.payoutFrequency,
    maxAffiliates: row.maxAffiliates,
  };
}

/** A 400 VALIDATION_ERROR shaped like a schema failure, for rules that need more than one field. */
export const invalid = invalidFields;

/** Percent rates above 100 in percentage mode, as field problems. */
export function percentProblems(mode: AffiliateCommissionMode, rates: [field: string, hundredths: number | null | undefined][]) {
  if (mode !== 'percentage') return [];
  return rates
    .filter(([, value]) => value !== null && value !== undefined && value > MAX_PERCENT_HUNDREDTHS)
    .map(([field]) => ({ field, message: 'a percentage rate must be between 0 and 100' }));
}

/**
 * A partial update merged over the stored configuration (or the defaults) and validated as a whole:
 * percentage rates 0-100. Changing the commission mode while affiliates hold rate overrides (which
 * would change meaning, percent <-> dollars) answers 409 CONFLICT. The row is locked while merged.
 */
export async function updateProgramConfig(ctx: HandlerContext, body: ProgramConfigBody): Promise<ProgramConfig> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const current = await programSettings(tx, clinicId, true);
    const merged: ProgramSettings = {
      enabled: body.affiliateProgramEnabled ?? current.enabled,
      commissionMode: body.affiliateCommissionMode ?? current.commissionMode,
      firstOrderRateHundredths:
        body.affiliateFirstOrderRate !== undefined ? toHundredths(body.affiliateFirstOrderRate) : current.firstOrderRateHundredths,
      defaultRateHundredths:
        body.affiliateDefaultRate !== undefined ? toHundredths(body.affiliateDefaultRate) : current.defaultRateHundredths,
      commissionDurationMonths:
        body.affiliateCommissionDurationMonths !== undefined ? body.affiliateCommissionDurationMonths : current.commissionDurationMonths,
      cookieWindowDays: body.affiliateCookieWindowDays ?? current.cookieWindowDays,
      minimumPayoutThresholdCents: body.affiliateMinimumPayoutThreshold ?? current.minimumPayoutThresholdCents,
      payoutFrequency: body.affiliatePayoutFrequency ?? current.payoutFrequency,
      maxAffiliates: body.affiliateMaxCount !== undefined ? body.affiliateMaxCount : current.maxAffiliates,
    };
    const problems = percentProblems(merged.commissionMode, [
      ['body.affiliateFirstOrderRate', merged.firstOrderRateHundredths],
      ['body.affiliateDefaultRate', merged.defaultRateHundredths],
    ]);
    if (problems.length) throw invalid(problems);
    if (merged.commissionMode !== current.commissionMode) {
      const overrides = await tx.$count(
        affiliates,
        and(
          eq(affiliates.clinicId, clinicId),
          or(isNotNull(affiliates.firstOrderRateHundredths), isNotNull(affiliates.commissionRateHundredths)),
        ),
      );
      if (overrides > 0) {
        throw conflict(
          'CONFLICT',
          `${overrides} affiliate(s) have rate overrides in ${current.commissionMode} mode; clear them (PATCH with null) before changing the commission mode`,
        );
      }
    }
    await tx
      .insert(affiliatePrograms)
      .values({ clinicId, ...merged, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: affiliatePrograms.clinicId, set: { ...merged, updatedAt: now } });
    return readConfig(tx, clinicId);
  });
}

// ---------- margin estimate ----------

interface MarginRow {
  program: ProgramSettings | null;
  programs: { id: string; name: string; state: ProgramState; products: ProductRow[] }[];
}

/**
 * For every priced product of the clinic's programs not retired: the display price from the pricing
 * rules (priceProduct), the clinic's share of a one-pack order at that price from the order fee
 * waterfall (computeFeeBreakdown: pharmacy cost, facilitation fee, the default doctor fee, the
 * processor fee), and the commission at the program's first-order and default rates (commissionCents,
 * the function generate uses). One statement, then pure computation.
 */
export async function marginEstimate({ db, clinicId }: HandlerContext): Promise<MarginEstimate> {
  const [row] = await rowsOf<MarginRow>(
    db,
    sql`
    select
      (select json_build_object(${programJson}) from affiliate_programs ap where ap.clinic_id = ${clinicId}) as program,
      (select coalesce(json_agg(x order by x."createdAt", x.id), '[]'::json) from (
        select p.id, p.name, p.state, p.created_at as "createdAt", ${programProductsJson} as products
        from programs p where p.clinic_id = ${clinicId} and p.state <> 'retired'
      ) x) as programs`,
  );
  const program = row!.program ?? DEFAULT_PROGRAM;
  const products: MarginEstimate['products'] = [];
  for (const p of row!.programs) {
    for (const product of p.products) {
      const price = priceProduct(pricingInput(product));
      if (price.displayPriceCents === null) continue;
      const margin = computeFeeBreakdown({
        items: [
          {
            unitPriceCents: price.displayPriceCents,
            quantity: 1,
            pharmacyCostCents: product.pharmacyBasePriceCents,
            facilitationFeeCents: price.facilitationFeeCents,
          },
        ],
      }).brandAmount;
      const first = commissionCents(program.commissionMode, price.displayPriceCents, program.firstOrderRateHundredths);
      const later = commissionCents(program.commissionMode, price.displayPriceCents, program.defaultRateHundredths);
      products.push({
        programId: p.id,
        programName: p.name,
        programState: p.state,
        globalProductId: product.globalProductId,
        productName: product.name,
        isSellable: price.isSellable,
        displayPrice: centsToAmount(price.displayPriceCents),
        clinicMargin: centsToAmount(margin),
        commissionFirstOrder: centsToAmount(first),
        commissionDefault: centsToAmount(later),
        marginAfterFirstOrderCommission: centsToAmount(margin - first),
        marginAfterDefaultCommission: centsToAmount(margin - later),
      });
    }
  }
  return {
    affiliateCommissionMode: program.commissionMode,
    affiliateFirstOrderRate: fromHundredths(program.firstOrderRateHundredths),
    affiliateDefaultRate: fromHundredths(program.defaultRateHundredths),
    products,
  };
}
