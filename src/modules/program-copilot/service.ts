import { sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
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

/**
 * The clinic's suggestions, computed in one query from its own programs (retired ones ignored), their
 * active products, its tenant products and enrollments. In order of importance:
 * 1. a discontinued global product still on a program (one per program and product);
 * 2. products without a fee: none of clinic override, program base fee, tenant placeholder resolves
 *    (one per program, with the count);
 * 3. a program without active products;
 * 4. a draft created more than STALE_DRAFT_DAYS days ago (count = days);
 * 5. a live program with no active or paused enrollment.
 */
export async function listSuggestions(db: Queryable, clinicId: string, now: Date): Promise<Suggestion[]> {
  const staleBefore = new Date(now.getTime() - STALE_DRAFT_DAYS * 86_400_000);
  const result = await db.execute(sql`
    with p as (
      select id, name, state, created_at from programs
      where clinic_id = ${clinicId} and state <> 'retired'
    ),
    pp as (
      select pp.program_id, pp.global_product_id, gp.name as product_name, gp.is_discontinued,
             coalesce(pp.clinic_fee_override_cents, pp.program_base_fee_cents, tp.placeholder_fee_cents) as fee_cents
      from program_products pp
      join p on p.id = pp.program_id
      join global_products gp on gp.id = pp.global_product_id
      left join tenant_products tp on tp.clinic_id = ${clinicId} and tp.global_product_id = pp.global_product_id
      where pp.clinic_id = ${clinicId} and pp.is_active
    ),
    s as (
      select 'discontinued_product_in_use' as type, 1 as rank, p.id as program_id, p.name as program_name,
             pp.global_product_id, pp.product_name, 1 as count
      from pp join p on p.id = pp.program_id where pp.is_discontinued
      union all
      select 'unpriced_products', 2, p.id, p.name, null, null, count(*)::int
      from pp join p on p.id = pp.program_id where pp.fee_cents is null group by p.id, p.name
      union all
      select 'program_without_products', 3, p.id, p.name, null, null, 1
      from p where not exists (select 1 from pp where pp.program_id = p.id)
      union all
      select 'stale_draft', 4, p.id, p.name, null, null, floor(extract(epoch from (${now.toISOString()}::timestamptz - p.created_at)) / 86400)::int
      from p where p.state = 'draft' and p.created_at < ${staleBefore.toISOString()}::timestamptz
      union all
      select 'live_program_without_patients', 5, p.id, p.name, null, null, 1
      from p where p.state = 'live' and not exists (
        select 1 from enrollments e
        where e.clinic_id = ${clinicId} and e.program_id = p.id and e.status in ('active', 'paused')
      )
    )
    select type, program_id, program_name, global_product_id, product_name, count from s
    order by rank, program_name, program_id, product_name nulls first
    limit ${MAX_SUGGESTIONS}
  `);
  return (result as unknown as { rows: SuggestionRow[] }).rows.map(describe);
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
      return { ...base, priority: 'high', action: 'replace_product',
        headline: `${row.product_name} is discontinued`,
        detail: `"${row.program_name}" still offers ${row.product_name}, which the platform no longer supplies. Replace it with another product (PUT /api/v1/programs/{id}/products).` };
    case 'unpriced_products':
      return { ...base, priority: 'high', action: 'set_prices',
        headline: `${base.count} product${base.count === 1 ? '' : 's'} without a price`,
        detail: `"${row.program_name}" has ${base.count} product${base.count === 1 ? '' : 's'} with no fee (no clinic override, program base fee or tenant placeholder). Set a programFee with PUT /api/v1/programs/{id} productPricing.` };
    case 'program_without_products':
      return { ...base, priority: 'medium', action: 'add_products',
        headline: 'Program without products',
        detail: `"${row.program_name}" has no active products, so patients cannot buy anything from it. Add products (PUT /api/v1/programs/{id}/products).` };
    case 'stale_draft':
      return { ...base, priority: 'low', action: 'publish_or_delete',
        headline: `Draft for ${base.count} days`,
        detail: `"${row.program_name}" has been a draft for ${base.count} days. Publish it or delete it.` };
    case 'live_program_without_patients':
      return { ...base, priority: 'low', action: 'promote_or_pause',
        headline: 'Live program without patients',
        detail: `"${row.program_name}" is live but no patient is enrolled. Promote it, or pause it.` };
  }
}
