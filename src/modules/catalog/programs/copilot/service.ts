import { sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../../platform/context';
import { rowsOf } from '../../../../platform/db/sql';
import { priceProduct } from '../pricing';
import type { Suggestion, SuggestionType } from './schemas';

/** A draft older than this many days is suggested for publishing or deleting. */
export const STALE_DRAFT_DAYS = 14;
/** At most this many suggestions are answered, most important first. */
export const MAX_SUGGESTIONS = 50;

interface SuggestionRow {
  type: SuggestionType;
  program_id: string;
  program_name: string;
  global_product_id: string | null;
  product_name: string | null;
  count: number;
}

/** A program's active product with what the pricing rules read. */
interface PricedProductRow {
  type: 'product';
  program_id: string;
  program_name: string;
  global_product_id: string;
  product_name: string;
  clinic_fee_override_cents: number | null;
  program_base_fee_cents: number | null;
  placeholder_fee_cents: number | null;
  facilitation_fee_cents: number | null;
  pharmacy_base_price_cents: number;
  has_coverage: boolean;
  is_discontinued: boolean;
}

const RANK: Record<SuggestionType, number> = {
  discontinued_product_in_use: 1,
  unpriced_products: 2,
  program_without_products: 3,
  stale_draft: 4,
  live_program_without_patients: 5,
};

/**
 * The clinic's suggestions, computed in one query from its own programs (retired ones ignored), their
 * active products, its tenant products and enrollments. In order of importance:
 * 1. a discontinued global product still on a program (one per program and product);
 * 2. products without a resolved price, as the programs area's priceProduct decides it (one per
 *    program, with the count) — the query returns the inputs, the rule stays in one function;
 * 3. a program without active products;
 * 4. a draft created more than STALE_DRAFT_DAYS days ago (count = days);
 * 5. a live program with no active or paused enrollment.
 */
export async function listSuggestions(ctx: HandlerContext): Promise<Suggestion[]> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const staleBefore = new Date(now.getTime() - STALE_DRAFT_DAYS * 86_400_000);
  const rows = await rowsOf<{ row: PricedProductRow | (Partial<SuggestionRow> & { type: SuggestionType }) }>(
    db,
    sql`
    with p as (
      select id, name, state, created_at from programs
      where clinic_id = ${clinicId} and state <> 'retired'
    ),
    pp as (
      select pp.program_id, pp.global_product_id, gp.name as product_name, gp.is_discontinued,
             pp.clinic_fee_override_cents, pp.program_base_fee_cents, tp.placeholder_fee_cents, tp.facilitation_fee_cents,
             gp.pharmacy_base_price_cents,
             exists (select 1 from pharmacy_coverages c where c.global_product_id = pp.global_product_id) as has_coverage
      from program_products pp
      join p on p.id = pp.program_id
      join global_products gp on gp.id = pp.global_product_id
      left join tenant_products tp on tp.clinic_id = ${clinicId} and tp.global_product_id = pp.global_product_id
      where pp.clinic_id = ${clinicId} and pp.is_active
    )
    select json_build_object('type', 'product', 'program_id', p.id, 'program_name', p.name,
             'global_product_id', pp.global_product_id, 'product_name', pp.product_name,
             'clinic_fee_override_cents', pp.clinic_fee_override_cents, 'program_base_fee_cents', pp.program_base_fee_cents,
             'placeholder_fee_cents', pp.placeholder_fee_cents, 'facilitation_fee_cents', pp.facilitation_fee_cents,
             'pharmacy_base_price_cents', pp.pharmacy_base_price_cents, 'has_coverage', pp.has_coverage,
             'is_discontinued', pp.is_discontinued) as row
    from pp join p on p.id = pp.program_id
    union all
    select json_build_object('type', 'program_without_products', 'program_id', p.id, 'program_name', p.name, 'count', 1)
    from p where not exists (select 1 from pp where pp.program_id = p.id)
    union all
    select json_build_object('type', 'stale_draft', 'program_id', p.id, 'program_name', p.name,
             'count', floor(extract(epoch from (${now.toISOString()}::timestamptz - p.created_at)) / 86400)::int)
    from p where p.state = 'draft' and p.created_at < ${staleBefore.toISOString()}::timestamptz
    union all
    select json_build_object('type', 'live_program_without_patients', 'program_id', p.id, 'program_name', p.name, 'count', 1)
    from p where p.state = 'live' and not exists (
      select 1 from enrollments e
      where e.clinic_id = ${clinicId} and e.program_id = p.id and e.status in ('active', 'paused')
    )
  `,
  );
  const suggestions: SuggestionRow[] = [];
  const unpriced = new Map<string, SuggestionRow>();
  for (const { row } of rows) {
    if (row.type !== 'product') {
      suggestions.push({ global_product_id: null, product_name: null, count: 1, ...row } as SuggestionRow);
      continue;
    }
    const product = row as PricedProductRow;
    if (product.is_discontinued) {
      suggestions.push({
        type: 'discontinued_product_in_use',
        program_id: product.program_id,
        program_name: product.program_name,
        global_product_id: product.global_product_id,
        product_name: product.product_name,
        count: 1,
      });
    }
    const price = priceProduct({
      clinicFeeOverrideCents: product.clinic_fee_override_cents,
      programBaseFeeCents: product.program_base_fee_cents,
      tenantPlaceholderFeeCents: product.placeholder_fee_cents,
      pharmacyCostCents: product.pharmacy_base_price_cents,
      facilitationFeeCents: product.facilitation_fee_cents,
      hasPharmacyCoverage: product.has_coverage,
      isActive: true,
      isDiscontinued: product.is_discontinued,
    });
    if (price.hasResolvedPrice) continue;
    const entry = unpriced.get(product.program_id) ?? {
      type: 'unpriced_products',
      program_id: product.program_id,
      program_name: product.program_name,
      global_product_id: null,
      product_name: null,
      count: 0,
    };
    entry.count++;
    unpriced.set(product.program_id, entry);
  }
  suggestions.push(...unpriced.values());
  suggestions.sort(
    (a, b) =>
      RANK[a.type] - RANK[b.type] ||
      a.program_name.localeCompare(b.program_name) ||
      a.program_id.localeCompare(b.program_id) ||
      (a.product_name ?? '').localeCompare(b.product_name ?? ''),
  );
  return suggestions.slice(0, MAX_SUGGESTIONS).map(describe);
}

function describe(row: SuggestionRow): Suggestion {
  const base = {
    type: row.type,
    programId: row.program_id,
    programName: row.program_name,
    globalProductId: row.global_product_id,
    productName: row.product_name,
    count: Number(row.count),
  };
  switch (row.type) {
    case 'discontinued_product_in_use':
      return {
        ...base,
        priority: 'high',
        action: 'replace_product',
        headline: `${row.product_name} is discontinued`,
        detail: `"${row.program_name}" still offers ${row.product_name}, which the platform no longer supplies. Replace it with another product (PUT /api/v1/programs/{id}/products).`,
      };
    case 'unpriced_products':
      return {
        ...base,
        priority: 'high',
        action: 'set_prices',
        headline: `${base.count} product${base.count === 1 ? '' : 's'} without a price`,
        detail: `"${row.program_name}" has ${base.count} product${base.count === 1 ? '' : 's'} without a resolved price (no clinic override, program base fee or tenant placeholder). Set a programFee with PUT /api/v1/programs/{id} productPricing.`,
      };
    case 'program_without_products':
      return {
        ...base,
        priority: 'medium',
        action: 'add_products',
        headline: 'Program without products',
        detail: `"${row.program_name}" has no active products, so patients cannot buy anything from it. Add products (PUT /api/v1/programs/{id}/products).`,
      };
    case 'stale_draft':
      return {
        ...base,
        priority: 'low',
        action: 'publish_or_delete',
        headline: `Draft for ${base.count} days`,
        detail: `"${row.program_name}" has been a draft for ${base.count} days. Publish it or delete it.`,
      };
    case 'live_program_without_patients':
      return {
        ...base,
        priority: 'low',
        action: 'promote_or_pause',
        headline: 'Live program without patients',
        detail: `"${row.program_name}" is live but no patient is enrolled. Promote it, or pause it.`,
      };
  }
}
