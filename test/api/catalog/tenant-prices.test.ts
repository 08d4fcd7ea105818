import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { globalProducts, plans, processorPrices, questionnaires, tenantProductSelections, tenantProducts } from '../../../drizzle/schema';
import { type CreatePriceInput, DevelopmentPaymentProcessor, type PaymentProcessor } from '../../../src/platform/providers/payments';
import { processorRefused, processorUnavailable } from '../../../src/platform/providers/payments/types';
import { buildTestApp, type TestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const unique = () => randomUUID().slice(0, 8);

async function makeGlobalProduct(values: Partial<typeof globalProducts.$inferInsert> = {}) {
  const u = unique();
  const [row] = await t.db
    .insert(globalProducts)
    .values({ name: `Product ${u}`, slug: `product-${u}`, pharmacyBasePriceCents: 10_000, ...values })
    .returning();
  return row!;
}

async function makeTenantProduct(clinicId: string, values: Partial<typeof tenantProducts.$inferInsert> = {}) {
  const gp = await makeGlobalProduct();
  const [row] = await t.db
    .insert(tenantProducts)
    .values({ clinicId, globalProductId: gp.id, facilitationFeeCents: 1_500, ...values })
    .returning();
  return { ...row!, globalProduct: gp };
}

async function makeQuestionnaire(clinicId: string) {
  const [row] = await t.db
    .insert(questionnaires)
    .values({ clinicId, name: `Intake ${unique()}` })
    .returning();
  return row!;
}

async function setPlanLimits(planId: string, limits: { maxSelectedProducts?: number | null; maxProductPriceCents?: number | null }) {
  await t.db.update(plans).set(limits).where(eq(plans.id, planId));
}

const updatePrice = (key: string, body: unknown, app: Pick<TestApp, 'request'> = t) =>
  app.request('/api/v1/tenant-products/update', { key, body });
const updateSelection = (key: string, body: unknown) => t.request('/api/v1/tenant-products/update-selection', { key, body });

/** Records calls, and answers like a processor (or fails as told). */
class RecordingProcessor implements PaymentProcessor {
  readonly name = 'recording';
  calls: CreatePriceInput[] = [];
  constructor(private readonly behaviour: 'ok' | 'unavailable' | 'refused' = 'ok') {}
  async createPrice(input: CreatePriceInput) {
    this.calls.push(input);
    if (this.behaviour === 'unavailable') throw processorUnavailable('test');
    if (this.behaviour === 'refused') throw processorRefused('test');
    return { processorPriceId: `price_rec_${this.calls.length}` };
  }
}

describe('POST /api/v1/tenant-products/update', () => {
  it('creates a price through the processor and stores it on the tenant product, in one go', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const tp = await makeTenantProduct(clinic.id);
    const res = await updatePrice(key, { tenantProductId: tp.id, price: 249.99 });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual({
      id: tp.id,
      globalProductId: tp.globalProductId,
      facilitationFee: 15,
      price: 249.99,
      placeholderFee: null,
      processorPriceId: expect.stringMatching(/^price_dev_[A-Za-z0-9]{24}$/),
      isActive: true,
      questionnaireIds: [],
      createdAt: tp.createdAt.toISOString(),
      updatedAt: expect.any(String),
      globalProduct: {
        id: tp.globalProductId,
        name: tp.globalProduct.name,
        slug: tp.globalProduct.slug,
        categories: [],
        imageUrl: null,
        pharmacyBasePrice: 100,
        packDurationMonths: 1,
        requiresCooler: false,
        isDiscontinued: false,
      },
    });
    expect(new Date(data.updatedAt).getTime()).toBeGreaterThan(tp.updatedAt.getTime());
    // The same shape GET /api/v1/tenant-products lists.
    const listed = (await (await t.request('/api/v1/tenant-products', { key })).json()).data;
    expect(listed).toEqual([data]);
    const [stored] = await t.db.select().from(tenantProducts).where(eq(tenantProducts.id, tp.id));
    expect(stored).toMatchObject({ priceCents: 24_999, processorPriceId: data.processorPriceId });
    const prices = await t.db.select().from(processorPrices).where(eq(processorPrices.clinicId, clinic.id));
    expect(prices).toHaveLength(1);
    expect(prices[0]).toMatchObject({
      processorPriceId: data.processorPriceId,
      reference: `tenant_product:${tp.id}`,
      unitAmountCents: 24_999,
      currency: 'usd',
      isActive: true,
    });
  });

  it('creates nothing for the same price again, and a new price for a new amount', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const tp = await makeTenantProduct(clinic.id);
    const first = (await (await updatePrice(key, { tenantProductId: tp.id, price: 150 })).json()).data;
    const again = (await (await updatePrice(key, { tenantProductId: tp.id, price: 150 })).json()).data;
    expect(again.processorPriceId).toBe(first.processorPriceId);
    const changed = (await (await updatePrice(key, { tenantProductId: tp.id.toUpperCase(), price: 175.5 })).json()).data;
    expect(changed.processorPriceId).not.toBe(first.processorPriceId);
    expect(changed.price).toBe(175.5);
    expect(await t.db.$count(processorPrices, eq(processorPrices.clinicId, clinic.id))).toBe(2);
  });

  it('passes amount, currency, product name, reference and a retry-stable idempotency key to the processor', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const tp = await makeTenantProduct(clinic.id);
    const processor = new RecordingProcessor();
    const app = buildTestApp(t.db, t.databaseUrl, { payments: processor });
    const res = await updatePrice(key, { tenantProductId: tp.id, price: 199 }, app);
    expect((await res.json()).data.processorPriceId).toBe('price_rec_1');
    expect(processor.calls).toEqual([
      {
        clinicId: clinic.id,
        reference: `tenant_product:${tp.id}`,
        unitAmountCents: 19_900,
        currency: 'usd',
        productName: tp.globalProduct.name,
        idempotencyKey: `tenant-product-price:${tp.id}:19900:${tp.updatedAt.getTime()}`,
      },
    ]);
  });

  it('stores nothing when the processor fails (503 unavailable with Retry-After, 502 refused)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const tp = await makeTenantProduct(clinic.id);
    const unavailable = await updatePrice(
      key,
      { tenantProductId: tp.id, price: 199 },
      buildTestApp(t.db, t.databaseUrl, { payments: new RecordingProcessor('unavailable') }),
    );
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('5');
    expect(await unavailable.json()).toMatchObject({ code: 'PAYMENT_PROCESSOR_UNAVAILABLE', retryAfterSeconds: 5 });
    const refused = await updatePrice(
      key,
      { tenantProductId: tp.id, price: 199 },
      buildTestApp(t.db, t.databaseUrl, { payments: new RecordingProcessor('refused') }),
    );
    expect(refused.status).toBe(502);
    expect((await refused.json()).code).toBe('PAYMENT_PROCESSOR_ERROR');
    const [stored] = await t.db.select().from(tenantProducts).where(eq(tenantProducts.id, tp.id));
    expect(stored).toMatchObject({ priceCents: null, processorPriceId: null });
  });

  it('records the development price in the same transaction: a failure after it leaves no price row', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const tp = await makeTenantProduct(clinic.id);
    const development = new DevelopmentPaymentProcessor();
    const failingAfterRecording: PaymentProcessor = {
      name: 'failing',
      async createPrice(input, context) {
        await development.createPrice(input, context);
        throw processorUnavailable('after recording');
      },
    };
    const res = await updatePrice(
      key,
      { tenantProductId: tp.id, price: 199 },
      buildTestApp(t.db, t.databaseUrl, { payments: failingAfterRecording }),
    );
    expect(res.status).toBe(503);
    expect(await t.db.$count(processorPrices, eq(processorPrices.clinicId, clinic.id))).toBe(0);
  });

  it('never sends a sandbox clinic’s price to the configured processor', async () => {
    const { clinic, key } = await makeTenant(t.db, { mode: 'sandbox' });
    const tp = await makeTenantProduct(clinic.id);
    const processor = new RecordingProcessor();
    const res = await updatePrice(key, { tenantProductId: tp.id, price: 120 }, buildTestApp(t.db, t.databaseUrl, { payments: processor }));
    expect(res.status).toBe(200);
    expect((await res.json()).data.processorPriceId).toMatch(/^price_dev_/);
    expect(processor.calls).toEqual([]);
  });

  it("answers the same 404 for an unknown, a malformed and another clinic's tenant product", async () => {
    const { key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const foreign = await makeTenantProduct(other.clinic.id);
    const bodies = new Set<string>();
    for (const id of [randomUUID(), 'not-a-uuid', foreign.id, "1' or '1'='1"]) {
      const res = await updatePrice(key, { tenantProductId: id, price: 150 });
      expect(res.status, id).toBe(404);
      const body = await res.json();
      expect(body.code).toBe('NOT_FOUND');
      bodies.add(body.message);
    }
    expect(bodies.size).toBe(1);
    const [untouched] = await t.db.select().from(tenantProducts).where(eq(tenantProducts.id, foreign.id));
    expect(untouched!.priceCents).toBeNull();
  });

  it('refuses a bad price with 400 naming body.price', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const tp = await makeTenantProduct(clinic.id);
    for (const price of [0, -1, 1.234, '150', null, 1_000_000, Number.MAX_VALUE]) {
      const res = await updatePrice(key, { tenantProductId: tp.id, price });
      expect(res.status, String(price)).toBe(400);
      expect((await res.json()).message, String(price)).toContain('body.price');
    }
    // Below the pharmacy cost plus the facilitation fee ($100 + $15).
    const below = await updatePrice(key, { tenantProductId: tp.id, price: 114.99 });
    expect(below.status).toBe(400);
    expect((await below.json()).message).toMatch(/body\.price: must be at least 115/);
    expect((await updatePrice(key, { tenantProductId: tp.id, price: 115 })).status).toBe(200);
    for (const body of [
      { price: 150 },
      { tenantProductId: tp.id },
      { tenantProductId: tp.id, price: 150, extra: true },
      { tenantProductId: 'a\u0000b', price: 150 },
    ]) {
      const res = await updatePrice(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("refuses a price above the plan's cap with 403 PLAN_PRICE_CAP_EXCEEDED", async () => {
    const { clinic, key } = await makeTenant(t.db);
    await setPlanLimits(clinic.planId!, { maxProductPriceCents: 50_000 });
    const tp = await makeTenantProduct(clinic.id);
    const res = await updatePrice(key, { tenantProductId: tp.id, price: 500.01 });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'PLAN_PRICE_CAP_EXCEEDED', data: { maxPriceCents: 50_000, tenantProductIds: [tp.id] } });
    expect((await updatePrice(key, { tenantProductId: tp.id, price: 500 })).status).toBe(200);
  });

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const tp = await makeTenantProduct(clinic.id);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await updatePrice(readOnly.raw, { tenantProductId: tp.id, price: 150 });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('POST /api/v1/tenant-products/update-selection', () => {
  const selectionOf = async (clinicId: string) =>
    (await t.db.select().from(tenantProductSelections).where(eq(tenantProductSelections.clinicId, clinicId)))
      .map((r) => `${r.tenantProductId}:${r.questionnaireId}`)
      .sort();

  it('replaces the whole selection, dedupes repeated pairs, and [] clears it', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const [a, b] = [await makeTenantProduct(clinic.id), await makeTenantProduct(clinic.id)];
    const [q1, q2] = [await makeQuestionnaire(clinic.id), await makeQuestionnaire(clinic.id)];
    const res = await updateSelection(key, {
      products: [
        { productId: a.id, questionnaireId: q1.id },
        { productId: a.id, questionnaireId: q2.id },
        { productId: b.id, questionnaireId: q1.id },
        { productId: b.id.toUpperCase(), questionnaireId: q1.id },
      ],
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      selections: [
        { productId: a.id, globalProductId: a.globalProductId, questionnaireId: q1.id },
        { productId: a.id, globalProductId: a.globalProductId, questionnaireId: q2.id },
        { productId: b.id, globalProductId: b.globalProductId, questionnaireId: q1.id },
      ],
      selectedProducts: 2,
      maxSelectedProducts: null,
    });
    expect(await selectionOf(clinic.id)).toEqual([`${a.id}:${q1.id}`, `${a.id}:${q2.id}`, `${b.id}:${q1.id}`].sort());

    await updateSelection(key, { products: [{ productId: b.id, questionnaireId: q2.id }] });
    expect(await selectionOf(clinic.id)).toEqual([`${b.id}:${q2.id}`]);
    const cleared = await updateSelection(key, { products: [] });
    expect((await cleared.json()).data).toEqual({ selections: [], selectedProducts: 0, maxSelectedProducts: null });
    expect(await selectionOf(clinic.id)).toEqual([]);
  });

  it("refuses unknown, malformed and other clinics' ids with one 400 naming each, and changes nothing", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const own = await makeTenantProduct(clinic.id);
    const q = await makeQuestionnaire(clinic.id);
    await updateSelection(key, { products: [{ productId: own.id, questionnaireId: q.id }] });
    const foreignProduct = await makeTenantProduct(other.clinic.id);
    const foreignQuestionnaire = await makeQuestionnaire(other.clinic.id);
    const res = await updateSelection(key, {
      products: [
        { productId: own.id, questionnaireId: q.id },
        { productId: foreignProduct.id, questionnaireId: q.id },
        { productId: randomUUID(), questionnaireId: foreignQuestionnaire.id },
        { productId: 'nope', questionnaireId: 'nope' },
        { productId: own.globalProductId, questionnaireId: q.id },
      ],
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.errors).toEqual([
      { field: 'body.products.1.productId', message: 'is not one of your tenant products' },
      { field: 'body.products.2.productId', message: 'is not one of your tenant products' },
      { field: 'body.products.2.questionnaireId', message: 'is not one of your questionnaires' },
      { field: 'body.products.3.productId', message: 'is not one of your tenant products' },
      { field: 'body.products.3.questionnaireId', message: 'is not one of your questionnaires' },
      { field: 'body.products.4.productId', message: 'is not one of your tenant products' },
    ]);
    expect(await selectionOf(clinic.id)).toEqual([`${own.id}:${q.id}`]);
    expect(await selectionOf(other.clinic.id)).toEqual([]);
  });

  it("enforces the plan's maxSelectedProducts on distinct tenant products (403 PLAN_LIMIT_REACHED)", async () => {
    const { clinic, key } = await makeTenant(t.db);
    await setPlanLimits(clinic.planId!, { maxSelectedProducts: 2 });
    const products = [await makeTenantProduct(clinic.id), await makeTenantProduct(clinic.id), await makeTenantProduct(clinic.id)];
    const [q1, q2] = [await makeQuestionnaire(clinic.id), await makeQuestionnaire(clinic.id)];
    const three = await updateSelection(key, { products: products.map((p) => ({ productId: p.id, questionnaireId: q1.id })) });
    expect(three.status).toBe(403);
    expect(await three.json()).toMatchObject({ code: 'PLAN_LIMIT_REACHED', data: { limit: 2, requested: 3 } });
    expect(await selectionOf(clinic.id)).toEqual([]);
    // Two products on two questionnaires: four rows, two products.
    const two = await updateSelection(key, {
      products: [products[0]!, products[1]!].flatMap((p) => [q1, q2].map((q) => ({ productId: p.id, questionnaireId: q.id }))),
    });
    expect(two.status).toBe(200);
    expect((await two.json()).data).toMatchObject({ selectedProducts: 2, maxSelectedProducts: 2 });
  });

  it("refuses selecting a product priced above the plan's cap (403 PLAN_PRICE_CAP_EXCEEDED)", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const pricey = await makeTenantProduct(clinic.id, { priceCents: 80_000 });
    const cheap = await makeTenantProduct(clinic.id, { priceCents: 20_000 });
    const unpriced = await makeTenantProduct(clinic.id);
    const q = await makeQuestionnaire(clinic.id);
    await setPlanLimits(clinic.planId!, { maxProductPriceCents: 50_000 });
    const res = await updateSelection(key, { products: [pricey, cheap].map((p) => ({ productId: p.id, questionnaireId: q.id })) });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      code: 'PLAN_PRICE_CAP_EXCEEDED',
      data: { maxPriceCents: 50_000, tenantProductIds: [pricey.id] },
    });
    const ok = await updateSelection(key, { products: [cheap, unpriced].map((p) => ({ productId: p.id, questionnaireId: q.id })) });
    expect(ok.status).toBe(200);
  });

  it('serialises concurrent replacements: the plan limit holds and one selection wins whole', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await setPlanLimits(clinic.planId!, { maxSelectedProducts: 3 });
    const q = await makeQuestionnaire(clinic.id);
    const sets = await Promise.all([0, 1, 2, 3].map(async () => [await makeTenantProduct(clinic.id), await makeTenantProduct(clinic.id)]));
    const results = await Promise.all(
      sets.map((set) => updateSelection(key, { products: set.map((p) => ({ productId: p.id, questionnaireId: q.id })) })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const rows = await t.db
      .select()
      .from(tenantProductSelections)
      .where(and(eq(tenantProductSelections.clinicId, clinic.id)));
    expect(rows).toHaveLength(2);
    expect(sets.some((set) => set.every((p) => rows.some((r) => r.tenantProductId === p.id)))).toBe(true);
  });

  it('validates the body shape with 400', async () => {
    const { key } = await makeTenant(t.db);
    const id = randomUUID();
    for (const body of [
      {},
      { products: {} },
      { products: [{ productId: id }] },
      { products: [{ productId: id, questionnaireId: id, x: 1 }] },
      { products: [], extra: 1 },
      { products: Array.from({ length: 501 }, () => ({ productId: id, questionnaireId: id })) },
    ]) {
      const res = await updateSelection(key, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await res.json()).code).toBe('VALIDATION_ERROR');
    }
  });

  it('needs the write scope', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await updateSelection(readOnly.raw, { products: [] });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});
