import { and, eq, inArray, sql } from 'drizzle-orm';
import { clinics, globalProducts, plans, questionnaires, tenantProductSelections, tenantProducts } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { isoTimestamp, rowsOf } from '../../../platform/db/sql';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError, badRequest, invalidFields, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmount, centsToAmountOrNull } from '../../../platform/values/money';
import type { SelectionResult, TenantProduct, UpdatePriceBody, UpdateSelectionBody } from './schemas';

export const PRICE_CURRENCY = 'usd';

const dollars = (cents: number) => `$${centsToAmount(cents).toFixed(2)}`;

/** The clinic's plan limits (a clinic without a plan has none). */
const PLAN_LIMITS = { maxSelectedProducts: plans.maxSelectedProducts, maxProductPriceCents: plans.maxProductPriceCents };

function priceCapExceeded(maxPriceCents: number, tenantProductIds: string[], what: string) {
  return new ApiError(403, 'PLAN_PRICE_CAP_EXCEEDED', ERROR_MESSAGES.PLAN_PRICE_CAP_EXCEEDED(what, maxPriceCents), {
    data: { maxPriceCents, tenantProductIds },
  });
}

/**
 * Sets a tenant product's price: one transaction locks the tenant product, checks the price against
 * its cost and the plan's cap, creates the price through the payment processor and stores it. The
 * same price again (already backed by a processor price) changes nothing and creates no price.
 */
export async function updateTenantProductPrice(ctx: HandlerContext, input: UpdatePriceBody): Promise<TenantProduct> {
  const { db, clinicId } = ctx;
  // Sandbox clinics never reach the real processor: their prices are recorded like development ones.
  const payments = ctx.paymentsFor({ sandbox: ctx.sandbox });
  const now = ctx.now();
  if (!isUuid(input.tenantProductId)) throw notFound('Tenant product');
  const scoped = forClinic(db, clinicId);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        id: tenantProducts.id,
        globalProductId: tenantProducts.globalProductId,
        priceCents: tenantProducts.priceCents,
        processorPriceId: tenantProducts.processorPriceId,
        facilitationFeeCents: tenantProducts.facilitationFeeCents,
        updatedAt: tenantProducts.updatedAt,
        name: globalProducts.name,
        pharmacyBasePriceCents: globalProducts.pharmacyBasePriceCents,
        maxProductPriceCents: plans.maxProductPriceCents,
      })
      .from(tenantProducts)
      .innerJoin(globalProducts, eq(globalProducts.id, tenantProducts.globalProductId))
      .innerJoin(clinics, eq(clinics.id, tenantProducts.clinicId))
      .leftJoin(plans, eq(plans.id, clinics.planId))
      .where(scoped.where(tenantProducts, eq(tenantProducts.id, input.tenantProductId)))
      .for('update', { of: tenantProducts });
    if (!row) throw notFound('Tenant product');

    const floor = row.pharmacyBasePriceCents + row.facilitationFeeCents;
    if (input.price < floor) {
      throw badRequest(
        `body.price: must be at least ${centsToAmount(floor)} (pharmacy cost ${dollars(row.pharmacyBasePriceCents)} plus facilitation fee ${dollars(row.facilitationFeeCents)})`,
      );
    }
    if (row.maxProductPriceCents !== null && input.price > row.maxProductPriceCents) {
      throw priceCapExceeded(row.maxProductPriceCents, [row.id], `A price of ${dollars(input.price)} is`);
    }

    if (row.priceCents !== input.price || !row.processorPriceId) {
      const created = await payments.createPrice(
        {
          clinicId,
          reference: `tenant_product:${row.id}`,
          unitAmountCents: input.price,
          currency: PRICE_CURRENCY,
          productName: row.name,
          // A retry of this very update (same product state, same amount) reuses the first price.
          idempotencyKey: `tenant-product-price:${row.id}:${input.price}:${row.updatedAt.getTime()}`,
        },
        { db: tx },
      );
      await tx
        .update(tenantProducts)
        .set({ priceCents: input.price, processorPriceId: created.processorPriceId, updatedAt: now })
        .where(and(eq(tenantProducts.clinicId, clinicId), eq(tenantProducts.id, row.id)));
    }
    return findTenantProduct(tx, clinicId, row.id);
  });
}

/**
 * Replaces the clinic's whole selection in one transaction. The clinic row is locked first, so two
 * concurrent replacements run one after the other and the plan limit holds. Every productId must be
 * one of the clinic's tenant products and every questionnaireId one of its questionnaires (400 naming
 * each refused field); the distinct tenant products must fit the plan's maxSelectedProducts (403
 * PLAN_LIMIT_REACHED) and their prices its maxProductPriceCents (403 PLAN_PRICE_CAP_EXCEEDED).
 */
export async function replaceSelection({ db, clinicId }: HandlerContext, input: UpdateSelectionBody): Promise<SelectionResult> {
  return db.transaction(async (tx) => {
    const [plan] = await tx
      .select(PLAN_LIMITS)
      .from(clinics)
      .leftJoin(plans, eq(plans.id, clinics.planId))
      .where(eq(clinics.id, clinicId))
      // The clinic lock's strength (src/platform/db/clinic-lock.ts): holders wait, referencing writes do not.
      .for('no key update', { of: clinics });
    const limit = plan?.maxSelectedProducts ?? null;
    const cap = plan?.maxProductPriceCents ?? null;

    const productIds = [...new Set(input.products.map((p) => p.productId).filter(isUuid))];
    const questionnaireIds = [...new Set(input.products.map((p) => p.questionnaireId).filter(isUuid))];
    const scoped = forClinic(tx, clinicId);
    const products = productIds.length
      ? await tx
          .select({ id: tenantProducts.id, globalProductId: tenantProducts.globalProductId, priceCents: tenantProducts.priceCents })
          .from(tenantProducts)
          .where(scoped.where(tenantProducts, inArray(tenantProducts.id, productIds)))
      : [];
    const ownQuestionnaires = questionnaireIds.length
      ? await tx
          .select({ id: questionnaires.id })
          .from(questionnaires)
          .where(scoped.where(questionnaires, inArray(questionnaires.id, questionnaireIds)))
      : [];
    // Compared lower-cased: PostgreSQL answers uuids in lower case whatever case was sent.
    const productById = new Map(products.map((p) => [p.id, p]));
    const knownQuestionnaires = new Set(ownQuestionnaires.map((q) => q.id));

    const errors: { field: string; message: string }[] = [];
    input.products.forEach((entry, i) => {
      if (!productById.has(entry.productId.toLowerCase())) {
        errors.push({ field: `body.products.${i}.productId`, message: 'is not one of your tenant products' });
      }
      if (!knownQuestionnaires.has(entry.questionnaireId.toLowerCase())) {
        errors.push({ field: `body.products.${i}.questionnaireId`, message: 'is not one of your questionnaires' });
      }
    });
    if (errors.length) {
      throw invalidFields(errors);
    }

    const pairs = new Map<string, { productId: string; questionnaireId: string }>();
    for (const entry of input.products) {
      const pair = { productId: entry.productId.toLowerCase(), questionnaireId: entry.questionnaireId.toLowerCase() };
      pairs.set(`${pair.productId}:${pair.questionnaireId}`, pair);
    }
    const selected = [...new Set([...pairs.values()].map((p) => p.productId))];
    if (limit !== null && selected.length > limit) {
      throw new ApiError(403, 'PLAN_LIMIT_REACHED', ERROR_MESSAGES.PLAN_LIMIT_REACHED(limit, selected.length), {
        data: { limit, requested: selected.length },
      });
    }
    if (cap !== null) {
      const above = selected.filter((id) => (productById.get(id)!.priceCents ?? 0) > cap);
      if (above.length)
        throw priceCapExceeded(
          cap,
          above,
          above.length === 1 ? 'A selected product is priced' : `${above.length} selected products are priced`,
        );
    }

    await tx.delete(tenantProductSelections).where(eq(tenantProductSelections.clinicId, clinicId));
    if (pairs.size) {
      await tx
        .insert(tenantProductSelections)
        .values([...pairs.values()].map((p) => ({ clinicId, tenantProductId: p.productId, questionnaireId: p.questionnaireId })));
    }
    return {
      selections: [...pairs.values()].map((p) => ({
        productId: p.productId,
        globalProductId: productById.get(p.productId)!.globalProductId,
        questionnaireId: p.questionnaireId,
      })),
      selectedProducts: selected.length,
      maxSelectedProducts: limit,
    };
  });
}

interface TenantProductRow {
  id: string;
  globalProductId: string;
  facilitationFeeCents: number;
  priceCents: number | null;
  placeholderFeeCents: number | null;
  processorPriceId: string | null;
  isActive: boolean;
  questionnaireIds: string[] | null;
  createdAt: string;
  updatedAt: string;
  name: string;
  slug: string;
  categories: string[] | null;
  imageUrl: string | null;
  pharmacyBasePriceCents: number;
  packDurationMonths: number;
  requiresCooler: boolean;
  isDiscontinued: boolean;
}

/** Tenant products of the clinic (one, when `id` is given) in the GET /tenant-products shape, one query. */
async function queryTenantProducts(db: Queryable, clinicId: string, id?: string): Promise<TenantProduct[]> {
  const rows = await rowsOf<TenantProductRow>(
    db,
    sql`
    select tp.id, tp.global_product_id as "globalProductId", tp.facilitation_fee_cents as "facilitationFeeCents",
      tp.price_cents as "priceCents", tp.placeholder_fee_cents as "placeholderFeeCents",
      tp.processor_price_id as "processorPriceId", tp.is_active as "isActive",
      ${isoTimestamp(sql`tp.created_at`)} as "createdAt", ${isoTimestamp(sql`tp.updated_at`)} as "updatedAt",
      coalesce((select array_agg(s.questionnaire_id::text order by s.created_at, s.questionnaire_id)
        from tenant_product_selections s where s.tenant_product_id = tp.id and s.clinic_id = tp.clinic_id), '{}'::text[]) as "questionnaireIds",
      g.name, g.slug, g.categories, coalesce(o.image_url, g.image_url) as "imageUrl",
      g.pharmacy_base_price_cents as "pharmacyBasePriceCents", g.pack_duration_months as "packDurationMonths",
      g.requires_cooler as "requiresCooler", g.is_discontinued as "isDiscontinued"
    from tenant_products tp
    join global_products g on g.id = tp.global_product_id
    left join global_product_image_overrides o on o.clinic_id = tp.clinic_id and o.global_product_id = g.id
    where tp.clinic_id = ${clinicId} ${id ? sql`and tp.id = ${id}` : sql``}
    order by g.name, tp.id`,
  );
  return rows.map((r) => ({
    id: r.id,
    globalProductId: r.globalProductId,
    facilitationFee: centsToAmount(r.facilitationFeeCents),
    price: centsToAmountOrNull(r.priceCents),
    placeholderFee: centsToAmountOrNull(r.placeholderFeeCents),
    processorPriceId: r.processorPriceId,
    isActive: r.isActive,
    questionnaireIds: r.questionnaireIds ?? [],
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    globalProduct: {
      id: r.globalProductId,
      name: r.name,
      slug: r.slug,
      categories: r.categories ?? [],
      imageUrl: r.imageUrl,
      pharmacyBasePrice: centsToAmount(r.pharmacyBasePriceCents),
      packDurationMonths: r.packDurationMonths,
      requiresCooler: r.requiresCooler,
      isDiscontinued: r.isDiscontinued,
    },
  }));
}

/** GET /tenant-products: every offering of the clinic (active or not), by product name. */
export const listTenantProducts = ({ db, clinicId }: HandlerContext): Promise<TenantProduct[]> => queryTenantProducts(db, clinicId);

/** One offering of the clinic in the same shape; the same 404 for unknown, malformed and foreign ids. */
export async function findTenantProduct(db: Queryable, clinicId: string, id: string): Promise<TenantProduct> {
  if (!isUuid(id)) throw notFound('Tenant product');
  const [row] = await queryTenantProducts(db, clinicId, id);
  if (!row) throw notFound('Tenant product');
  return row;
}
