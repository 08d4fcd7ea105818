import { sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../platform/context';
import { rowsOf } from '../../../platform/db/sql';
import { priceProduct } from './pricing';
import { type ProductRow, pricingInput, programProductJoins, programProductJson } from './queries';
import type { Overview } from './schemas';

// GET /programs/overview in one statement. Money is summed in SQL from the clinic's active
// enrollments: each charge divided by its billing interval is its monthly share, summed per program
// and rounded to whole cents; the clinic totals are the sums of the programs' rounded values.
// Unpriced products are judged by the pricing function (pricing.ts) on the rows the same statement
// returns, so the overview and the Program's unpricedProductCount can never disagree.

interface OverviewRow {
  stats: Overview['stats'];
  perProgram: Overview['perProgram'];
  programProducts: { programId: string; programName: string; products: ProductRow[] }[];
  discontinued: { programId: string; programName: string; productName: string; patients: number; valueCents: number }[];
  increases: {
    programId: string;
    programName: string;
    productName: string | null;
    previousCents: number | null;
    newCents: number | null;
    deltaCents: number | null;
    valueCents: number | null;
  }[];
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export async function programsOverview({ db, clinicId }: HandlerContext): Promise<Overview> {
  const [row] = await rowsOf<OverviewRow>(
    db,
    sql`
    with prog as (
      select id, name, state from programs where clinic_id = ${clinicId} and state <> 'retired'
    ),
    enr as (
      select e.program_id, e.patient_id, e.global_product_id, e.charge_amount_cents, e.net_amount_cents, e.billing_interval_months
      from enrollments e join prog on prog.id = e.program_id
      where e.clinic_id = ${clinicId} and e.status = 'active'
    ),
    per as (
      select prog.id, prog.name,
        count(distinct enr.patient_id)::int as patients,
        coalesce(round(sum(enr.charge_amount_cents::numeric / enr.billing_interval_months)), 0)::bigint as billed,
        coalesce(round(sum(enr.net_amount_cents::numeric / enr.billing_interval_months)), 0)::bigint as net
      from prog left join enr on enr.program_id = prog.id
      group by prog.id, prog.name
    )
    select
      (select json_build_object(
        'livePrograms', (select count(*) from prog where state = 'live'),
        'draftPrograms', (select count(*) from prog where state = 'draft'),
        'pausedPrograms', (select count(*) from prog where state = 'paused'),
        'totalPatients', (select count(distinct patient_id) from enr),
        'estBilledMonthlyCents', (select coalesce(sum(billed), 0) from per),
        'estNetMonthlyCents', (select coalesce(sum(net), 0) from per)
      )) as stats,
      (select coalesce(json_agg(json_build_object(
        'programId', per.id, 'patients', per.patients, 'estBilledMonthlyCents', per.billed, 'estNetMonthlyCents', per.net
      ) order by per.billed desc, per.name, per.id), '[]'::json) from per) as "perProgram",
      (select coalesce(json_agg(json_build_object(
        'programId', prog.id, 'programName', prog.name,
        'products', (
          select coalesce(json_agg(${programProductJson} order by pp.display_order, pp.id), '[]'::json)
          from program_products pp ${programProductJoins}
          where pp.program_id = prog.id and pp.clinic_id = ${clinicId}
        )
      ) order by prog.name, prog.id), '[]'::json) from prog) as "programProducts",
      (select coalesce(json_agg(json_build_object(
        'programId', prog.id, 'programName', prog.name, 'productName', gp.name,
        'patients', (select count(distinct enr.patient_id) from enr where enr.program_id = prog.id and enr.global_product_id = gp.id),
        'valueCents', (select coalesce(round(sum(enr.charge_amount_cents::numeric / enr.billing_interval_months)), 0)::bigint
                       from enr where enr.program_id = prog.id and enr.global_product_id = gp.id)
      ) order by prog.name, gp.name), '[]'::json)
      from prog
      join program_products pp on pp.program_id = prog.id and pp.clinic_id = ${clinicId}
      join global_products gp on gp.id = pp.global_product_id and gp.is_discontinued) as discontinued,
      (select coalesce(json_agg(json_build_object(
        'programId', prog.id, 'programName', prog.name, 'productName', gp.name,
        'previousCents', a.previous_pharmacy_price_cents, 'newCents', a.new_pharmacy_price_cents, 'deltaCents', a.per_unit_margin_delta_cents,
        'valueCents', case when a.per_unit_margin_delta_cents is null then null else (
          select coalesce(round(sum(abs(a.per_unit_margin_delta_cents)::numeric / enr.billing_interval_months)), 0)::bigint
          from enr where enr.program_id = prog.id and enr.global_product_id = a.global_product_id) end
      ) order by a.created_at desc, a.id), '[]'::json)
      from price_change_alerts a
      join prog on prog.id = a.program_id or (a.program_id is null and a.global_product_id is not null and exists (
        select 1 from program_products pp where pp.program_id = prog.id and pp.clinic_id = ${clinicId} and pp.global_product_id = a.global_product_id))
      left join global_products gp on gp.id = a.global_product_id
      where a.clinic_id = ${clinicId} and a.status = 'open' and a.direction = 'increase') as increases`,
  );
  const result = row!;

  const attention: Overview['attention'] = [];
  for (const { programId, programName, products } of result.programProducts) {
    const unpriced = products.filter((product) => !priceProduct(pricingInput(product)).hasResolvedPrice);
    if (!unpriced.length) continue;
    attention.push({
      type: 'unpriced_products',
      programId,
      programName,
      headline: `${unpriced.length} product${unpriced.length === 1 ? ' has' : 's have'} no price`,
      detail: `No fee resolves for ${unpriced.map((p) => p.name).join(', ')}: set a program fee (PUT /api/v1/programs/${programId}, productPricing).`,
      estValueCents: null,
      action: 'set_product_pricing',
    });
  }
  for (const item of result.discontinued) {
    attention.push({
      type: 'discontinued_product_in_use',
      programId: item.programId,
      programName: item.programName,
      headline: `${item.productName} is discontinued`,
      detail: `${item.patients} patient${item.patients === 1 ? ' is' : 's are'} enrolled on it in this program; replace it with an available product.`,
      estValueCents: Number(item.valueCents),
      action: 'replace_discontinued_product',
    });
  }
  for (const item of result.increases) {
    const product = item.productName ?? 'A product';
    const change =
      item.previousCents !== null && item.newCents !== null ? ` from ${dollars(item.previousCents)} to ${dollars(item.newCents)}` : '';
    const margin = item.deltaCents !== null ? `; the margin per pack moves by ${dollars(item.deltaCents)}` : '';
    attention.push({
      type: 'pharmacy_price_increase',
      programId: item.programId,
      programName: item.programName,
      headline: `Pharmacy price of ${product} went up`,
      detail: `The pharmacy cost rose${change}${margin}. Review the program fee.`,
      estValueCents: item.valueCents === null ? null : Number(item.valueCents),
      action: 'review_program_fee',
    });
  }
  attention.sort((a, b) => (b.estValueCents ?? -1) - (a.estValueCents ?? -1));

  const stats = result.stats;
  return {
    stats: {
      livePrograms: Number(stats.livePrograms),
      draftPrograms: Number(stats.draftPrograms),
      pausedPrograms: Number(stats.pausedPrograms),
      totalPatients: Number(stats.totalPatients),
      estBilledMonthlyCents: Number(stats.estBilledMonthlyCents),
      estNetMonthlyCents: Number(stats.estNetMonthlyCents),
    },
    perProgram: result.perProgram.map((p) => ({
      programId: p.programId,
      patients: Number(p.patients),
      estBilledMonthlyCents: Number(p.estBilledMonthlyCents),
      estNetMonthlyCents: Number(p.estNetMonthlyCents),
    })),
    attention,
  };
}
