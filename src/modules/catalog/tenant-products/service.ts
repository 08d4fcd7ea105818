import { and, eq, inArray } from 'drizzle-orm';
import { clinics, globalProducts, plans, questionnaires, tenantProducts, tenantProductSelections } from '../../../../drizzle/schema';
import type { Database } from '../../../platform/db/client';
import { forClinic } from '../../../platform/db/scoped';
import { ApiError, badRequest, notFound, invalidFields } from '../../../platform/http/errors';
import { isUuid } from '../../../platform/http/ids';
import { centsToAmount } from '../../../platform/http/money';
import type { PaymentProcessor } from '../../../platform/providers/payments';
import { findTenantProduct } from '../product-catalog/service'; // the tenant product as GET /tenant-products shows it
import type { PricedTenantProduct, SelectionResult, UpdatePriceBody, UpdateSelectionBody } from './schemas';

export const PRICE_CURRENCY = 'usd';

const dollars = (cents: number) => `$${centsToAmount(cents).toFixed(2)}`;

/** The clinic's plan limits (a clinic without a plan has none). */
const PLAN_LIMITS = { maxSelectedProducts: plans.maxSelectedProducts, maxProductPriceCents: plans.maxProductPriceCents };

function priceCapExceeded(maxPriceCents: number, tenantProductIds: string[], what: string) {
  return new ApiError(403, 'PLAN_PRICE_CAP_EXCEEDED', `${what} above your plan's price cap of ${dollars(maxPriceCents)} per product`, {
    data: { maxPriceCents, tenantProductIds },
  });
}

/**
 * Sets a tenant product's price: one transaction locks the tenant product, checks the price against
 * its cost and the plan's cap, creates the price through the payment processor and stores it. The
 * same price again (already backed by a processor price) changes nothing and creates no price.
 */
export async function updateTenantProductPrice(
  db: Database,
  payments: PaymentProcessor,
  clinicId: string,
  input: UpdatePriceBody,
  now: Date,
): Promise<PricedTenantProduct> {
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
      throw badRequest(`body.price: must be at least ${centsToAmount(floor)} (pharmacy cost ${dollars(row.pharmacyBasePriceCents)} plus facilitation fee ${dollars(row.facilitationFeeCents)})`);
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
export async function replaceSelection(db: Database, clinicId: string, input: UpdateSelectionBody): Promise<SelectionResult> {
  return db.transaction(async (tx) => {
    const [plan] = await tx
      .select(PLAN_LIMITS)
      .from(clinics)
      .leftJoin(plans, eq(plans.id, clinics.planId))
      .where(eq(clinics.id, clinicId))
      .for('update', { of: clinics });
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
      throw new ApiError(403, 'PLAN_LIMIT_REACHED', `Your plan allows ${limit} selected products; this selection has ${selected.length}`, {
        data: { limit, requested: selected.length },
      });
    }
    if (cap !== null) {
      const above = selected.filter((id) => (productById.get(id)!.priceCents ?? 0) > cap);
      if (above.length) throw priceCapExceeded(cap, above, above.length === 1 ? 'A selected product is priced' : `${above.length} selected products are priced`);
    }

    await tx.delete(tenantProductSelections).where(eq(tenantProductSelections.clinicId, clinicId));
    if (pairs.size) {
      await tx.insert(tenantProductSelections).values(
        [...pairs.values()].map((p) => ({ clinicId, tenantProductId: p.productId, questionnaireId: p.questionnaireId })),
      );
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
