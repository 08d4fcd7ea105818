// The production payment processor (StripePaymentProcessor: the official `stripe` client on its fetch
// HTTP client) against test/tooling/stripe-stand-in.ts, a local stand-in for Stripe's POST /v1/prices
// that records what it receives. Also: the app's price route on that adapter, and the adapter choice.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalProducts, ledgerEntries, payouts, processorPrices, refunds as refundRows, tenantProducts } from '../../drizzle/schema';
import { ConfigError, readConfig } from '../../src/config';
import { ProviderError, providerFailure } from '../../src/platform/http/provider-errors';
import { providersFor } from '../../src/platform/providers';
import {
  type CreatePriceInput,
  DevelopmentPaymentProcessor,
  type RefundInput,
  StripePaymentProcessor,
  type TransferInput,
} from '../../src/platform/providers/payments';
import type { ApiError } from '../../src/platform/values/errors';
import { buildTestApp, testConfig, useTestApp } from '../helpers/app';
import { makeTenant } from '../helpers/factories';
import { addLedgerEntry, deliveredOrder, recordCharge } from '../helpers/money-fixtures';
import { makeOrder } from '../helpers/order-fixtures';
import { type StripeStandIn, startStripeStandIn } from '../tooling/stripe-stand-in';

const t = useTestApp();
let stand: StripeStandIn;
beforeAll(async () => {
  stand = await startStripeStandIn();
});
afterAll(() => stand?.close());

const adapter = (options: { secretKey?: string; maxNetworkRetries?: number; port?: number; transferDestination?: string } = {}) =>
  new StripePaymentProcessor({
    secretKey: stand.secretKey,
    host: stand.host,
    port: stand.port,
    protocol: stand.protocol,
    maxNetworkRetries: 0,
    timeoutMs: 3_000,
    ...options,
  });

const input = (overrides: Partial<CreatePriceInput> = {}): CreatePriceInput => ({
  clinicId: randomUUID(),
  reference: `tenant_product:${randomUUID()}`,
  unitAmountCents: 24_999,
  currency: 'usd',
  productName: 'Semaglutide Injection',
  idempotencyKey: `test-${randomUUID()}`,
  ...overrides,
});

/** The adapter's failure (a ProviderError), as the API answers it. */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return providerFailure(error as ProviderError);
}

describe('StripePaymentProcessor against the Stripe stand-in', () => {
  it('sends POST /v1/prices form-encoded with amount, currency, product data, metadata and the idempotency key', async () => {
    const request = input();
    const before = stand.requests.length;
    const { processorPriceId } = await adapter().createPrice(request);
    expect(processorPriceId).toMatch(/^price_[A-Za-z0-9]{24}$/);
    expect(stand.prices.get(processorPriceId)).toMatchObject({ unit_amount: 24_999, currency: 'usd', type: 'one_time' });

    const sent = stand.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe('POST');
    expect(sent[0]!.path).toBe('/v1/prices');
    expect(sent[0]!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${stand.secretKey}`);
    expect(sent[0]!.headers['idempotency-key']).toBe(request.idempotencyKey);
    expect(sent[0]!.headers['stripe-version']).toMatch(/^\d{4}-\d{2}-\d{2}/);
    expect(sent[0]!.form).toEqual({
      unit_amount: '24999',
      currency: 'usd',
      'product_data[name]': 'Semaglutide Injection',
      'product_data[metadata][clinic_id]': request.clinicId,
      'product_data[metadata][reference]': request.reference,
      'metadata[clinic_id]': request.clinicId,
      'metadata[reference]': request.reference,
    });
  });

  it('a repeated idempotency key returns the first price and creates nothing', async () => {
    const request = input();
    const first = await adapter().createPrice(request);
    const count = stand.prices.size;
    const again = await adapter().createPrice(request);
    expect(again.processorPriceId).toBe(first.processorPriceId);
    expect(stand.prices.size).toBe(count);
  });

  it('retries a 500 with the same idempotency key', async () => {
    const request = input();
    const before = stand.requests.length;
    stand.failNext(500, { type: 'api_error', message: 'An unknown error occurred' });
    const { processorPriceId } = await adapter({ maxNetworkRetries: 1 }).createPrice(request);
    const sent = stand.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent.map((r) => r.headers['idempotency-key'])).toEqual([request.idempotencyKey, request.idempotencyKey]);
    expect(stand.prices.has(processorPriceId)).toBe(true);
  });

  it('maps Stripe errors: refusals to 502 PAYMENT_PROCESSOR_ERROR, outages to 503 PAYMENT_PROCESSOR_UNAVAILABLE', async () => {
    const badKey = await failure(adapter({ secretKey: 'sk_test_wrong' }).createPrice(input()));
    expect([badKey.status, badKey.code]).toEqual([502, 'PAYMENT_PROCESSOR_ERROR']);
    expect(badKey.message).toContain('HTTP 401');

    const invalid = await failure(adapter().createPrice(input({ unitAmountCents: 1.5 })));
    expect([invalid.status, invalid.code]).toEqual([502, 'PAYMENT_PROCESSOR_ERROR']);
    expect(invalid.message).toContain('parameter_invalid_integer');

    stand.failNext(500, { type: 'api_error', message: 'An unknown error occurred' });
    const outage = await failure(adapter().createPrice(input()));
    expect([outage.status, outage.code]).toEqual([503, 'PAYMENT_PROCESSOR_UNAVAILABLE']);
    expect(outage.headers).toEqual({ 'Retry-After': '5' });
    expect(outage.extra).toEqual({ retryAfterSeconds: 5 });

    stand.failNext(429, { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests' });
    const limited = await failure(adapter().createPrice(input()));
    expect([limited.status, limited.code]).toEqual([503, 'PAYMENT_PROCESSOR_UNAVAILABLE']);

    // Nothing listens there: a connection error.
    const closed = await startStripeStandIn();
    const port = closed.port;
    await closed.close();
    const unreachable = await failure(adapter({ port }).createPrice(input()));
    expect([unreachable.status, unreachable.code]).toEqual([503, 'PAYMENT_PROCESSOR_UNAVAILABLE']);
    expect(unreachable.message).toContain('StripeConnectionError');
  });

  it('POST /api/v1/tenant-products/update on the Stripe adapter stores the price Stripe created', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const u = randomUUID().slice(0, 8);
    const [gp] = await t.db
      .insert(globalProducts)
      .values({ name: `Tirzepatide ${u}`, slug: `tirzepatide-${u}`, pharmacyBasePriceCents: 19_900 })
      .returning();
    const [tp] = await t.db.insert(tenantProducts).values({ clinicId: clinic.id, globalProductId: gp!.id }).returning();
    const app = buildTestApp(t.db, t.databaseUrl, { payments: adapter() });
    const before = stand.requests.length;

    const res = await app.request('/api/v1/tenant-products/update', { key, body: { tenantProductId: tp!.id, price: 349 } });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.processorPriceId).toMatch(/^price_[A-Za-z0-9]{24}$/);
    expect(stand.prices.get(data.processorPriceId)).toMatchObject({
      unit_amount: 34_900,
      metadata: { clinic_id: clinic.id, reference: `tenant_product:${tp!.id}` },
    });
    const sent = stand.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.form['product_data[name]']).toBe(gp!.name);
    expect(sent[0]!.headers['idempotency-key']).toBe(`tenant-product-price:${tp!.id}:34900:${tp!.updatedAt.getTime()}`);
    const [stored] = await t.db.select().from(tenantProducts).where(eq(tenantProducts.id, tp!.id));
    expect(stored).toMatchObject({ priceCents: 34_900, processorPriceId: data.processorPriceId });
    // The processor keeps production prices; the development table stays empty.
    expect(await t.db.$count(processorPrices, eq(processorPrices.clinicId, clinic.id))).toBe(0);

    stand.failNext(503, { type: 'api_error', message: 'Service unavailable' });
    const down = await app.request('/api/v1/tenant-products/update', { key, body: { tenantProductId: tp!.id, price: 399 } });
    expect(down.status).toBe(503);
    expect((await down.json()).code).toBe('PAYMENT_PROCESSOR_UNAVAILABLE');
    const [unchanged] = await t.db.select().from(tenantProducts).where(eq(tenantProducts.id, tp!.id));
    expect(unchanged!.priceCents).toBe(34_900);
  });
});

describe('choosing the payment processor', () => {
  const base = testConfig('postgres://127.0.0.1/db');

  it('Stripe with STRIPE_SECRET_KEY; the development processor otherwise, but never in production', () => {
    const paymentsFor = (config: typeof base, db: typeof t.db) => providersFor(config, {}, db).payments;
    expect(paymentsFor({ ...base, stripe: { secretKey: 'sk_test_x' } }, t.db)).toBeInstanceOf(StripePaymentProcessor);
    expect(paymentsFor({ ...base, stripe: null }, t.db)).toBeInstanceOf(DevelopmentPaymentProcessor);
    expect(paymentsFor({ ...base, environment: 'development', stripe: null }, t.db)).toBeInstanceOf(DevelopmentPaymentProcessor);
    expect(() => paymentsFor({ ...base, environment: 'production', stripe: null }, t.db)).toThrow(ConfigError);
    expect(paymentsFor({ ...base, environment: 'production', stripe: { secretKey: 'sk_live_x' } }, t.db)).toBeInstanceOf(
      StripePaymentProcessor,
    );
  });

  it('reads STRIPE_SECRET_KEY and refuses a publishable key', () => {
    const env = { ENVIRONMENT: 'development', DATABASE_URL: 'postgres://127.0.0.1/db' };
    expect(readConfig(env).stripe).toBeNull();
    expect(readConfig({ ...env, STRIPE_SECRET_KEY: 'sk_test_abc' }).stripe).toEqual({ secretKey: 'sk_test_abc' });
    expect(readConfig({ ...env, STRIPE_SECRET_KEY: 'rk_live_abc' }).stripe).toEqual({ secretKey: 'rk_live_abc' });
    expect(() => readConfig({ ...env, STRIPE_SECRET_KEY: 'pk_live_abc' })).toThrow(/STRIPE_SECRET_KEY/);
  });
});

// --- refunds and transfers (payouts and refunds area) ---
const refundInput = (overrides: Partial<RefundInput> = {}): RefundInput => ({
  clinicId: randomUUID(),
  processorPaymentId: `pi_${randomUUID().replace(/-/g, '')}`,
  amountCents: 12_000,
  reason: 'Shipment lost',
  idempotencyKey: `refund:${randomUUID()}`,
  ...overrides,
});

const transferInput = (overrides: Partial<TransferInput> = {}): TransferInput => ({
  clinicId: randomUUID(),
  amountCents: 2_550,
  idempotencyKey: `withdrawal:${randomUUID()}`,
  ...overrides,
});

describe('StripePaymentProcessor refunds and transfers against the stand-in', () => {
  it('refund: POST /v1/refunds with the payment intent, amount, reason, metadata and idempotency key', async () => {
    const input = refundInput();
    stand.addCharge(input.processorPaymentId!, 12_000);
    const before = stand.requests.length;
    const { processorRefundId } = await adapter().refund(input);
    expect(processorRefundId).toMatch(/^re_[A-Za-z0-9]{24}$/);
    expect(stand.refunds.get(processorRefundId)).toMatchObject({
      amount: 12_000,
      payment_intent: input.processorPaymentId,
      status: 'succeeded',
    });
    const sent = stand.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect([sent[0]!.method, sent[0]!.path]).toEqual(['POST', '/v1/refunds']);
    expect(sent[0]!.headers['idempotency-key']).toBe(input.idempotencyKey);
    expect(sent[0]!.form).toEqual({
      payment_intent: input.processorPaymentId,
      amount: '12000',
      reason: 'requested_by_customer',
      'metadata[clinic_id]': input.clinicId,
      'metadata[reason]': 'Shipment lost',
    });

    // The same key again: the same refund, nothing new.
    const count = stand.refunds.size;
    expect((await adapter().refund(input)).processorRefundId).toBe(processorRefundId);
    expect(stand.refunds.size).toBe(count);
    // A new key for the same, fully refunded charge: Stripe refuses it.
    const twice = await failure(adapter().refund({ ...input, idempotencyKey: `refund:${randomUUID()}` }));
    expect([twice.status, twice.code]).toEqual([502, 'PAYMENT_PROCESSOR_ERROR']);
    expect(twice.message).toContain('charge_already_refunded');
  });

  it('refund: a ch_ id is sent as charge; no payment id, a larger amount or an outage map like prices', async () => {
    const charge = refundInput({ processorPaymentId: 'ch_3Nabc', amountCents: 500 });
    const before = stand.requests.length;
    await adapter().refund(charge);
    expect(stand.requests[before]!.form).toMatchObject({ charge: 'ch_3Nabc', amount: '500' });

    const none = await failure(adapter().refund(refundInput({ processorPaymentId: null })));
    expect([none.status, none.code]).toEqual([502, 'PAYMENT_PROCESSOR_ERROR']);

    const big = refundInput({ amountCents: 10_001 });
    stand.addCharge(big.processorPaymentId!, 10_000);
    const tooLarge = await failure(adapter().refund(big));
    expect(tooLarge.message).toContain('amount_too_large');

    stand.failNext(500, { type: 'api_error', message: 'An unknown error occurred' });
    const outage = await failure(adapter().refund(refundInput()));
    expect([outage.status, outage.code]).toEqual([503, 'PAYMENT_PROCESSOR_UNAVAILABLE']);
  });

  it('transfer: POST /v1/transfers to the configured connected account; without one, not connected', async () => {
    const input = transferInput();
    const before = stand.requests.length;
    const connected = adapter({ transferDestination: 'acct_1TestClinic' });
    expect(connected.payoutsConnected()).toBe(true);
    const { processorTransferId } = await connected.transfer(input);
    expect(processorTransferId).toMatch(/^tr_[A-Za-z0-9]{24}$/);
    const sent = stand.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect([sent[0]!.method, sent[0]!.path]).toEqual(['POST', '/v1/transfers']);
    expect(sent[0]!.headers['idempotency-key']).toBe(input.idempotencyKey);
    expect(sent[0]!.form).toEqual({
      amount: '2550',
      currency: 'usd',
      destination: 'acct_1TestClinic',
      'metadata[clinic_id]': input.clinicId,
    });
    expect(stand.transfers.get(processorTransferId)).toMatchObject({ amount: 2_550, destination: 'acct_1TestClinic' });

    expect(adapter().payoutsConnected()).toBe(false);
    const unconfigured = await failure(adapter().transfer(transferInput()));
    expect([unconfigured.status, unconfigured.code]).toEqual([502, 'PAYMENT_PROCESSOR_ERROR']);
    const wrong = await failure(adapter({ transferDestination: 'not-an-account' }).transfer(transferInput()));
    expect(wrong.message).toContain('resource_missing');
    stand.failNext(429, { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests' });
    const limited = await failure(connected.transfer(transferInput()));
    expect([limited.status, limited.code]).toEqual([503, 'PAYMENT_PROCESSOR_UNAVAILABLE']);
  });

  it('POST /api/v1/refunds and /api/v1/payouts/withdraw on the Stripe adapter store what Stripe created', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await addLedgerEntry(t.db, clinic.id, 'charge', 50_000);
    const order = await makeOrder(t.db, clinic.id, deliveredOrder(8_800, 5_000));
    const payment = await recordCharge(t.db, order);
    stand.addCharge(payment!.processorPaymentId!, 8_800);
    const app = buildTestApp(t.db, t.databaseUrl, { payments: adapter({ transferDestination: 'acct_1TestClinic' }) });

    const refunded = await app.request('/api/v1/refunds', { key, body: { orderId: order.id, reason: 'Wrong dose' } });
    expect(refunded.status).toBe(201);
    const { data: refund } = await refunded.json();
    expect(stand.refunds.get(refund.processorRefundId)).toMatchObject({
      amount: 8_800,
      payment_intent: payment!.processorPaymentId,
      metadata: { clinic_id: clinic.id, reason: 'Wrong dose' },
    });
    const [row] = await t.db.select().from(refundRows).where(eq(refundRows.id, refund.id));
    expect(row!.processorRefundId).toBe(refund.processorRefundId);
    const sentRefund = stand.requests.findLast((r) => r.path === '/v1/refunds')!;
    expect(sentRefund.headers['idempotency-key']).toBe(`refund:${order.id}`);

    const withdrawn = await app.request('/api/v1/payouts/withdraw', { key, body: { amount: 100 } });
    expect(withdrawn.status).toBe(201);
    const { data } = await withdrawn.json();
    expect(stand.transfers.get(data.payout.processorTransferId)).toMatchObject({
      amount: 10_000,
      destination: 'acct_1TestClinic',
      metadata: { clinic_id: clinic.id },
    });
    const sentTransfer = stand.requests.findLast((r) => r.path === '/v1/transfers')!;
    expect(sentTransfer.headers['idempotency-key']).toBe(`withdrawal:${data.payout.id}`);

    // An outage stores nothing.
    stand.failNext(503, { type: 'api_error', message: 'Service unavailable' });
    const down = await app.request('/api/v1/payouts/withdraw', { key, body: { amount: 1 } });
    expect(down.status).toBe(503);
    expect(await t.db.$count(payouts, eq(payouts.clinicId, clinic.id))).toBe(1);
    expect(await t.db.$count(ledgerEntries, eq(ledgerEntries.payoutId, data.payout.id))).toBe(1);

    // Without a connected account: 409, nothing sent.
    const before = stand.requests.length;
    const unconnected = await buildTestApp(t.db, t.databaseUrl, { payments: adapter() }).request('/api/v1/payouts/withdraw', {
      key,
      body: { amount: 1 },
    });
    expect(unconnected.status).toBe(409);
    expect((await unconnected.json()).code).toBe('PAYOUT_ACCOUNT_NOT_CONNECTED');
    expect(stand.requests.length).toBe(before);
  });
});
