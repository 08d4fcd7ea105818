// An integrator's ordinary workflow through the typed client. Compiled under `tsc --strict` by
// workflow.test.ts (tsconfig.json next to it) and run there against the API: it must compile as an
// integrator would write it, with no cast.
import { type BrandAdminClient, newIdempotencyKey, type OrderStatus, type Schema, withIdempotencyKey } from '../src/index';

export interface WorkflowResult {
  pages: { ids: string[]; total: number; totalPages: number }[];
  order: { id: string; status: OrderStatus; items: number };
  coupon: { id: string; code: string; replayed: string | null; deleted: boolean };
  webhook: { id: string; events: string[]; secretPrefix: string };
  programs: { id: string; name: string }[];
  pricing: { programId: string; products: number };
}

function fail(what: string, error: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(error)}`);
}

export async function runWorkflow(api: BrandAdminClient, input: { couponCode: string; webhookUrl: string }): Promise<WorkflowResult> {
  // 1. Orders, two per page, page by page.
  const pages: WorkflowResult['pages'] = [];
  for (let page = 1; ; page++) {
    const { data, error } = await api.GET('/api/v1/orders', { params: { query: { page, limit: 2 } } });
    if (!data) fail('listOrders', error);
    pages.push({ ids: data.data.map((order) => order.id), total: data.pagination.total, totalPages: data.pagination.totalPages });
    if (page >= data.pagination.totalPages) break;
  }

  // 2. One order in full.
  const firstId = pages[0]?.ids[0];
  if (!firstId) throw new Error('no order to read');
  const { data: detail, error: detailError } = await api.GET('/api/v1/orders/{id}', { params: { path: { id: firstId } } });
  if (!detail) fail('getOrder', detailError);
  const status: OrderStatus = detail.data.status;

  // 3. A coupon with only the three fields it needs (every other field has a server-side default), sent
  //    twice with one Idempotency-Key: the retry is answered from the first call. Then deleted.
  const couponBody: Schema<'CreateCouponRequest'> = { code: input.couponCode, discountType: 'percent', discountValue: 15 };
  const key = newIdempotencyKey();
  const created = await api.POST('/api/v1/coupons', { body: couponBody, ...withIdempotencyKey(key) });
  if (!created.data) fail('createCoupon', created.error);
  const retried = await api.POST('/api/v1/coupons', { body: couponBody, ...withIdempotencyKey(key) });
  if (!retried.data) fail('createCoupon (retry)', retried.error);
  const couponId = created.data.data.id;
  const deleted = await api.DELETE('/api/v1/coupons/{id}', { params: { path: { id: couponId } } });
  if (deleted.error) fail('deleteCoupon', deleted.error);

  // 4. A webhook endpoint for two events (the names are a union type: a typo does not compile).
  const hook = await api.POST('/api/v1/webhooks', { body: { url: input.webhookUrl, events: ['order.created', 'order.shipped'] } });
  if (!hook.data) fail('createWebhook', hook.error);

  // 5. Programs, and the pricing of the first.
  const { data: programs, error: programsError } = await api.GET('/api/v1/programs', { params: { query: { limit: 50 } } });
  if (!programs) fail('listPrograms', programsError);
  const program = programs.data[0];
  if (!program) throw new Error('no program');
  const { data: pricing, error: pricingError } = await api.GET('/api/v1/programs/{id}/products', { params: { path: { id: program.id } } });
  if (!pricing) fail('getProgramPricing', pricingError);

  return {
    pages,
    order: { id: detail.data.id, status, items: detail.data.orderItems.length },
    coupon: {
      id: couponId,
      code: created.data.data.code,
      replayed: retried.response.headers.get('idempotent-replayed'),
      deleted: deleted.response.ok,
    },
    webhook: { id: hook.data.data.id, events: hook.data.data.events, secretPrefix: hook.data.data.secret.slice(0, 6) },
    programs: programs.data.map((p) => ({ id: p.id, name: p.name })),
    pricing: { programId: program.id, products: pricing.data.products.length },
  };
}

/** Never called: what must NOT compile. tsc fails if a directive below has no error to expect. */
export function doesNotCompile(api: BrandAdminClient) {
  const url = 'https://hooks.example.com/service';
  // @ts-expect-error 'order.exploded' is not a webhook event name (the server would answer 400)
  const body: Schema<'CreateWebhookRequest'> = { url, events: ['order.exploded'] };
  // @ts-expect-error a coupon needs a code
  const coupon: Schema<'CreateCouponRequest'> = { discountType: 'percent', discountValue: 15 };
  // @ts-expect-error 'exploded' is not an order status
  const status: OrderStatus = 'exploded';
  return [api, body, coupon, status];
}

/** The first call of the README, compiled with the rest (the README's code must stay true). */
export async function readmeFirstCall(api: BrandAdminClient): Promise<string[]> {
  const { data, error, response } = await api.GET('/api/v1/orders', { params: { query: { page: 1, limit: 20 } } });
  if (error) throw new Error(`${response.status} ${error.code}: ${error.message}`);
  return [...data.data.map((order) => `${order.orderNumber} ${order.status} ${order.totalAmount}`), `of ${data.pagination.totalPages}`];
}
