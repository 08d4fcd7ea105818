import type { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../../platform/context';
import { rowsOf } from '../../../../platform/db/sql';
import { badRequest, notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { centsToAmount, centsToAmountOrNull } from '../../../../platform/values/money';
import { NON_MEDICAL_SERVICE_FEE_INCLUDED_IN_DISPLAY_PRICE, priceProduct } from '../pricing';
import {
  globalProductJsonFields,
  type ProductRow,
  type ProgramRow,
  pricingInput,
  programProductJoins,
  programProductJson,
  toGlobalProduct,
  toPricedProduct,
} from '../queries';
import { lockProgram, requireProgram } from '../service';
import type { PricingRead, poolProduct, replaceProductsBody } from './schemas';

// A program's products: the pricing read, replacing the set, the pool of global products it can
// use, and per-product activation and visibility.

export function toPricingRead(program: ProgramRow): PricingRead {
  return {
    programId: program.id,
    nonMedicalServiceFee: centsToAmount(program.nonMedicalServiceFeeCents),
    nonMedicalServiceFeeIncludedInDisplayPrice: NON_MEDICAL_SERVICE_FEE_INCLUDED_IN_DISPLAY_PRICE,
    products: program.products.map(toPricedProduct),
  };
}

export async function getPricing({ db, clinicId }: HandlerContext, id: string): Promise<PricingRead> {
  return toPricingRead(await requireProgram(db, clinicId, id));
}

/**
 * Replaces the product set with the global products listed, in that display order. Products that
 * stay keep their row (fees, overrides, activation, visibility); new ones take the template's base
 * fee when the program's template has them (linkSource template), else none (linkSource program).
 */
export async function replaceProducts(ctx: HandlerContext, id: string, body: z.infer<typeof replaceProductsBody>): Promise<PricingRead> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const program = await lockProgram(tx, clinicId, id);
    const ids = body.products.map((p) => p.productId.toLowerCase());
    const repeated = ids.filter((value, index) => ids.indexOf(value) !== index);
    if (repeated.length) throw badRequest(`body.products: listed more than once: ${[...new Set(repeated)].join(', ')}`);
    const inList = ids.length
      ? sql.join(
          ids.map((value) => sql`${value}::uuid`),
          sql`, `,
        )
      : sql`null::uuid`;
    const known = await rowsOf<{ id: string; isDiscontinued: boolean; inProgram: boolean }>(
      tx,
      sql`
      select gp.id, gp.is_discontinued as "isDiscontinued",
        exists (select 1 from program_products pp where pp.program_id = ${id} and pp.clinic_id = ${clinicId} and pp.global_product_id = gp.id) as "inProgram"
      from global_products gp where gp.id in (${inList})`,
    );
    const byId = new Map(known.map((row) => [row.id, row]));
    const unknown = ids.filter((value) => !byId.has(value));
    if (unknown.length) throw badRequest(`body.products: unknown global products: ${unknown.join(', ')}`);
    const discontinued = ids.filter((value) => byId.get(value)!.isDiscontinued && !byId.get(value)!.inProgram);
    if (discontinued.length) throw badRequest(`body.products: discontinued products cannot be added: ${discontinued.join(', ')}`);

    const staying = ids.length ? sql`and global_product_id not in (${inList})` : sql``;
    await tx.execute(sql`delete from program_products where program_id = ${id} and clinic_id = ${clinicId} ${staying}`);
    if (ids.length) {
      const values = ids.map((value, order) => sql`(${value}::uuid, ${order}::integer)`);
      await tx.execute(sql`
        insert into program_products (clinic_id, program_id, global_product_id, display_order, link_source, program_base_fee_cents, created_at, updated_at)
        select ${clinicId}, ${id}, v.gp, v.ord, case when tpp.id is null then 'program' else 'template' end, tpp.program_base_fee_cents, ${now}, ${now}
        from (values ${sql.join(values, sql`, `)}) as v(gp, ord)
        left join program_template_products tpp on tpp.template_id = ${program.templateId}::uuid and tpp.global_product_id = v.gp
        on conflict (program_id, global_product_id) do update set display_order = excluded.display_order, updated_at = excluded.updated_at`);
    }
    await tx.execute(sql`update programs set updated_at = ${now} where id = ${id} and clinic_id = ${clinicId}`);
    return toPricingRead(await requireProgram(tx, clinicId, id));
  });
}

type PoolProduct = z.infer<typeof poolProduct>;

/**
 * The fee-adjusted pool: every global product the program has or could add (discontinued ones only
 * when already in it), with the fee it has in the program, or would have if added now (the tenant
 * placeholder), and the displayPrice that fee gives. One statement.
 */
export async function globalProductPool({ db, clinicId }: HandlerContext, id: string): Promise<PoolProduct[]> {
  if (!isUuid(id)) throw notFound('Program');
  const [row] = await rowsOf<{ pool: (ProductRow & { inProgram: boolean })[] }>(
    db,
    sql`
    select (
      select coalesce(json_agg(json_build_object(
        'inProgram', pp.id is not null, 'id', pp.id, 'isActive', coalesce(pp.is_active, true), 'linkSource', pp.link_source,
        'programBaseFeeCents', pp.program_base_fee_cents, 'clinicFeeOverrideCents', pp.clinic_fee_override_cents,
        ${globalProductJsonFields}
      ) order by gp.name, gp.id), '[]'::json)
      from global_products gp
      left join program_products pp on pp.program_id = p.id and pp.clinic_id = p.clinic_id and pp.global_product_id = gp.id
      left join tenant_products tp on tp.clinic_id = p.clinic_id and tp.global_product_id = gp.id
      left join global_product_image_overrides io on io.clinic_id = p.clinic_id and io.global_product_id = gp.id
      where not gp.is_discontinued or pp.id is not null
    ) as pool
    from programs p where p.id = ${id} and p.clinic_id = ${clinicId}`,
  );
  if (!row) throw notFound('Program');
  return row.pool.map((product) => {
    const price = priceProduct(pricingInput(product));
    return {
      ...toGlobalProduct(product),
      inProgram: product.inProgram,
      feeSource: price.feeSource,
      effectiveProgramFee: centsToAmountOrNull(price.effectiveFeeCents),
      facilitationFee: centsToAmount(price.facilitationFeeCents),
      displayPrice: centsToAmountOrNull(price.displayPriceCents),
      hasResolvedPrice: price.hasResolvedPrice,
    };
  });
}

const toActivation = (product: ProductRow) => {
  const price = priceProduct(pricingInput(product));
  return {
    globalProductId: product.globalProductId,
    name: product.name,
    isActive: product.isActive,
    isDiscontinued: product.isDiscontinued,
    hasResolvedPrice: price.hasResolvedPrice,
    isSellable: price.isSellable,
  };
};

const toVisibility = (product: ProductRow) => ({
  globalProductId: product.globalProductId,
  name: product.name,
  isPatientVisible: product.isPatientVisible,
});

export async function activationStatus({ db, clinicId }: HandlerContext, id: string) {
  const program = await requireProgram(db, clinicId, id);
  return { programId: program.id, products: program.products.map(toActivation) };
}

export async function visibilityStatus({ db, clinicId }: HandlerContext, id: string) {
  const program = await requireProgram(db, clinicId, id);
  return { programId: program.id, products: program.products.map(toVisibility) };
}

const PROGRAM_PRODUCT = 'Program product';

/**
 * Sets one flag of a product of the program. productId is the global product id. An unknown,
 * malformed or other clinic's program, and a product not in the program, all answer the same 404.
 */
async function setProductFlag(
  ctx: HandlerContext,
  id: string,
  productId: string,
  column: 'is_active' | 'is_patient_visible',
  value: boolean,
) {
  const { db, clinicId } = ctx;
  if (!isUuid(id) || !isUuid(productId)) throw notFound(PROGRAM_PRODUCT);
  const now = ctx.now();
  // The updated row comes back from the same statement: nothing is read again.
  const [row] = await rowsOf<{ product: ProductRow }>(
    db,
    sql`
    with pp as (
      update program_products set ${sql.raw(column)} = ${value}, updated_at = ${now}
      where program_id = ${id} and clinic_id = ${clinicId} and global_product_id = ${productId}
      returning *
    )
    select ${programProductJson} as product from pp ${programProductJoins}`,
  );
  if (!row) throw notFound(PROGRAM_PRODUCT);
  return row.product;
}

export async function activateProduct(ctx: HandlerContext, id: string, productId: string, isActive: boolean) {
  return toActivation(await setProductFlag(ctx, id, productId, 'is_active', isActive));
}

export async function setProductVisibility(ctx: HandlerContext, id: string, productId: string, isPatientVisible: boolean) {
  return toVisibility(await setProductFlag(ctx, id, productId, 'is_patient_visible', isPatientVisible));
}
