import { type SQL, sql } from 'drizzle-orm';
import type { FeeBreakdownCents, FulfillmentType, OrderStatus } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { isoTimestamp as iso, likePattern, num, rowsOf } from '../../../platform/db/sql';
import { type PageQuery, pageOffset, pagination } from '../../../platform/http/pagination';
import { notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmount } from '../../../platform/values/money';
import { feeBreakdownToAmounts } from './fee-breakdown';
import type { ActorType } from './lifecycle/platform-events';
import { groupRollup, totalRollup } from './rollups';
import { type ListOrdersQuery, type OrderDetail, type OrderListItem, toRange } from './schemas';

// The list, the detail and the events of a clinic's orders: one statement each.

/** The order columns both the list and the detail answer, as json_build_object arguments (alias o). */
const orderJsonFields = sql`
  'id', o.id, 'orderNumber', o.order_number, 'status', o.status,
  'totalCents', o.total_cents, 'subtotalCents', o.subtotal_cents, 'discountCents', o.discount_cents,
  'taxCents', o.tax_cents, 'shippingCents', o.shipping_cents, 'brandAmountCents', o.brand_amount_cents,
  'billingInterval', o.billing_interval_months, 'createdAt', ${iso(sql`o.created_at`)},
  'shippedAt', ${iso(sql`o.shipped_at`)}, 'deliveredAt', ${iso(sql`o.delivered_at`)}, 'paidAt', ${iso(sql`o.paid_at`)},
  'fulfillmentType', o.fulfillment_type, 'approvedByDoctor', o.approved_by_doctor, 'feeBreakdown', o.fee_breakdown`;

interface OrderJson {
  id: string;
  orderNumber: string;
  status: OrderStatus;
  totalCents: number;
  subtotalCents: number;
  discountCents: number;
  taxCents: number;
  shippingCents: number;
  brandAmountCents: number;
  billingInterval: number;
  createdAt: string;
  shippedAt: string | null;
  deliveredAt: string | null;
  paidAt: string | null;
  fulfillmentType: FulfillmentType;
  approvedByDoctor: boolean;
  feeBreakdown: FeeBreakdownCents;
}

function orderFields(o: OrderJson) {
  return {
    id: o.id,
    orderNumber: o.orderNumber,
    status: o.status,
    totalAmount: centsToAmount(o.totalCents),
    subtotalAmount: centsToAmount(o.subtotalCents),
    discountAmount: centsToAmount(o.discountCents),
    taxAmount: centsToAmount(o.taxCents),
    shippingAmount: centsToAmount(o.shippingCents),
    brandAmount: centsToAmount(o.brandAmountCents),
    billingInterval: o.billingInterval,
    createdAt: o.createdAt,
    shippedAt: o.shippedAt,
    deliveredAt: o.deliveredAt,
    fulfillmentType: o.fulfillmentType,
    approvedByDoctor: o.approvedByDoctor,
    feeBreakdown: feeBreakdownToAmounts(o.feeBreakdown),
  };
}

type ListRow = OrderJson & {
  user: { id: string; firstName: string; lastName: string; email: string };
  program: { id: string; name: string } | null;
};

/**
 * Newest first (created_at desc, id desc). The page starts from the clinic's `day` rollup rows: their
 * running count (newest day first) finds the UTC day the page's first order is in and how many orders
 * the newer days hold, so the index (clinic_id, created_at, id) is entered at that day's end and skips
 * at most one day's orders — a deep page costs about the first, whatever the clinic's size. A page past
 * the end finds no day and reads no order. Only the page's rows are then read and joined (a deferred
 * join). The total is the clinic's order count from its rollup row (exact, kept in the same transaction
 * as every order write: ./rollups.ts), read in the same statement, so a page past the end still has it.
 */
const listItems = (clinicId: string) => sql`(select coalesce(json_agg(json_build_object(
        ${orderJsonFields},
        'user', json_build_object('id', pt.id, 'firstName', pt.first_name, 'lastName', pt.last_name, 'email', pt.email),
        'program', case when pr.id is null then null else json_build_object('id', pr.id, 'name', pr.name) end
      ) order by page.created_at desc, page.id desc), '[]'::json)
      from page
      join orders o on o.id = page.id and o.clinic_id = ${clinicId}
      join patients pt on pt.id = o.patient_id and pt.clinic_id = ${clinicId}
      left join programs pr on pr.id = o.program_id and pr.clinic_id = ${clinicId})`;

const hasFilters = (q: ListOrdersQuery) => Boolean(q.status || q.programId || q.createdGte || q.createdLte || q.q);

export async function listOrders(ctx: HandlerContext, query: ListOrdersQuery) {
  if (hasFilters(query)) return listFilteredOrders(ctx, query);
  const { db, clinicId } = ctx;
  const [row] = await rowsOf<{ total: number | string; items: ListRow[] }>(
    db,
    sql`
    with days as (
      -- A day's slots are peers in the key order: the running sum counts a day's slots together and
      -- the second window sums one day's slots, in the same sort as one row per day (no grouping).
      select key, sum(orders) over (order by key desc) as upto,
        sum(orders) over (order by key desc range between current row and current row) as orders
      from clinic_rollups where clinic_id = ${clinicId} and dim = 'day'
    ),
    start as (
      select (key::date + 1)::timestamp at time zone 'UTC' as before, upto - orders as skipped
      from days where upto > ${pageOffset(query)} order by key desc limit 1
    ),
    page as (
      select id, created_at from orders
      where clinic_id = ${clinicId} and created_at < (select before from start)
      order by created_at desc, id desc
      limit ${query.limit} offset ${pageOffset(query)} - (select skipped from start)
    )
    select
      ${totalRollup(clinicId, 'orders')} as total,
      ${listItems(clinicId)} as items`,
  );
  return listAnswer(query, row!);
}

function listAnswer(query: PageQuery, row: { total: number | string; items: ListRow[] }) {
  const data: OrderListItem[] = row.items.map((o) => ({ ...orderFields(o), paidAt: o.paidAt, user: o.user, program: o.program }));
  return { data, pagination: pagination(query, num(row.total)) };
}

/**
 * The list with filters (docs/orders.md, "Filters"), still one statement. A status (one or more) or a
 * program alone takes its total from the rollups' `status`/`program` rows and reads only the page:
 * one index scan per status ((clinic_id, status, created_at)), merged newest first, or the program's
 * (clinic_id, program_id, created_at). Any other filter counts its matches: read through the index
 * that fits (creation time; for `q` the order-number and patient-email trigram indexes, migration
 * list_search_indexes), counted, and only the page's rows built.
 */
async function listFilteredOrders(ctx: HandlerContext, query: ListOrdersQuery) {
  const { db, clinicId } = ctx;
  const { from, to } = toRange({ startDate: query.createdGte, endDate: query.createdLte });
  const statuses = query.status ? [...new Set(query.status)] : [];
  const conditions: SQL[] = [sql`o.clinic_id = ${clinicId}`];
  if (query.programId) conditions.push(sql`o.program_id = ${query.programId}`);
  if (from) conditions.push(sql`o.created_at >= ${from.toISOString()}`);
  if (to) conditions.push(sql`o.created_at <= ${to.toISOString()}`);
  const where = (...more: SQL[]) => sql.join([...conditions, ...more], sql` and `);
  const newestFirst = sql`order by created_at desc, id desc`;

  // A status or a program alone has rollup rows; no other filter or combination does.
  const alone = !from && !to && !query.q;
  let groupTotal: SQL | null = null;
  if (alone && statuses.length && !query.programId) groupTotal = groupRollup(clinicId, 'status', statuses, 'orders');
  // The rollup key is the program id as PostgreSQL prints a uuid: lower case.
  if (alone && query.programId && !statuses.length)
    groupTotal = groupRollup(clinicId, 'program', [query.programId.toLowerCase()], 'orders');
  if (groupTotal) {
    // Each status's newest (offset + limit) through its index, merged: no more rows read than the page needs.
    const page = statuses.length
      ? sql`select id, created_at from (${sql.join(
          statuses.map(
            (s) => sql`(select o.id, o.created_at from orders o where ${where(sql`o.status = ${s}`)}
              order by o.created_at desc, o.id desc limit ${pageOffset(query) + query.limit})`,
          ),
          sql` union all `,
        )}) s ${newestFirst} limit ${query.limit} offset ${pageOffset(query)}`
      : sql`select o.id, o.created_at from orders o where ${where()}
          order by o.created_at desc, o.id desc limit ${query.limit} offset ${pageOffset(query)}`;
    const [row] = await rowsOf<{ total: number | string; items: ListRow[] }>(
      db,
      sql`with page as (${page}) select ${groupTotal} as total, ${listItems(clinicId)} as items`,
    );
    return listAnswer(query, row!);
  }

  if (statuses.length)
    conditions.push(
      sql`o.status in (${sql.join(
        statuses.map((s) => sql`${s}`),
        sql`, `,
      )})`,
    );
  // The text search as two index-friendly halves (an OR across two tables would scan the clinic's
  // orders): order numbers through their trigram index, and the orders of the patients whose email
  // matches (the email trigram index, then (clinic_id, patient_id, created_at)). UNION drops an order
  // found by both.
  const pattern = query.q ? likePattern(query.q) : null;
  const matched = pattern
    ? sql`select o.id, o.created_at from orders o where ${where(sql`o.order_number ilike ${pattern}`)}
      union
      select o.id, o.created_at from orders o where ${where(sql`o.patient_id in (
        select p.id from patients p where p.clinic_id = ${clinicId} and p.email ilike ${pattern})`)}`
    : sql`select o.id, o.created_at from orders o where ${where()}`;
  const [row] = await rowsOf<{ total: number | string; items: ListRow[] }>(
    db,
    sql`
    with matched as (${matched}),
    page as (
      select id, created_at from matched ${newestFirst} limit ${query.limit} offset ${pageOffset(query)}
    )
    select (select count(*) from matched) as total, ${listItems(clinicId)} as items`,
  );
  return listAnswer(query, row!);
}

type DetailRow = OrderJson & {
  user: OrderDetail['user'];
  orderItems: {
    id: string;
    quantity: number;
    unitPriceCents: number;
    totalPriceCents: number;
    productId: string | null;
    productName: string;
  }[];
  payment: OrderDetail['payment'];
  shippingAddress: OrderDetail['shippingAddress'];
  shippingOrders: OrderDetail['shippingOrders'];
};

export async function getOrder(ctx: HandlerContext, id: string): Promise<OrderDetail> {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound('Order');
  const [row] = await rowsOf<{ order: DetailRow }>(
    db,
    sql`
    select json_build_object(
      ${orderJsonFields},
      'user', json_build_object('id', pt.id, 'firstName', pt.first_name, 'lastName', pt.last_name, 'email', pt.email, 'phoneNumber', pt.phone_number),
      'orderItems', (select coalesce(json_agg(json_build_object(
          'id', oi.id, 'quantity', oi.quantity, 'unitPriceCents', oi.unit_price_cents, 'totalPriceCents', oi.total_price_cents,
          'productId', oi.global_product_id, 'productName', oi.product_name
        ) order by oi.product_name, oi.id), '[]'::json)
        from order_items oi where oi.clinic_id = o.clinic_id and oi.order_id = o.id),
      'payment', (select json_build_object('status', p.status, 'paymentMethod', p.payment_method)
        from payments p where p.clinic_id = o.clinic_id and p.order_id = o.id
        order by p.created_at desc, p.id desc limit 1),
      'shippingAddress', (select json_build_object('address', a.address, 'city', a.city, 'state', a.state, 'zipCode', a.zip_code, 'country', a.country)
        from shipping_addresses a where a.clinic_id = o.clinic_id and a.order_id = o.id),
      'shippingOrders', (select coalesce(json_agg(json_build_object(
          'id', s.id, 'status', s.status, 'trackingNumber', s.tracking_number, 'trackingUrl', s.tracking_url
        ) order by s.created_at, s.id), '[]'::json)
        from shipments s where s.clinic_id = o.clinic_id and s.order_id = o.id)
    ) as order
    from orders o
    join patients pt on pt.id = o.patient_id
    where o.clinic_id = ${clinicId} and o.id = ${id}`,
  );
  if (!row) throw notFound('Order');
  const o = row.order;
  return {
    ...orderFields(o),
    user: o.user,
    orderItems: o.orderItems.map((item) => ({
      id: item.id,
      quantity: item.quantity,
      unitPrice: centsToAmount(item.unitPriceCents),
      totalPrice: centsToAmount(item.totalPriceCents),
      product: { id: item.productId, name: item.productName },
    })),
    payment: o.payment,
    shippingAddress: o.shippingAddress,
    shippingOrders: o.shippingOrders,
  };
}

/** The order's events, oldest first (created_at, then insertion order for events of one transaction). */
export async function getOrderEvents(ctx: HandlerContext, id: string) {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound('Order');
  const [row] = await rowsOf<{
    hasPdf: boolean;
    events: { id: string; eventType: string; actorType: ActorType; createdAt: string; metadata: Record<string, unknown> }[];
  }>(
    db,
    sql`
    select o.prescription_pdf_key is not null as "hasPdf",
      (select coalesce(json_agg(json_build_object(
          'id', e.id, 'eventType', e.event_type, 'actorType', e.actor_type, 'createdAt', ${iso(sql`e.created_at`)}, 'metadata', e.metadata
        ) order by e.created_at, e.seq), '[]'::json)
        from order_events e where e.clinic_id = o.clinic_id and e.order_id = o.id) as events
    from orders o where o.clinic_id = ${clinicId} and o.id = ${id}`,
  );
  if (!row) throw notFound('Order');
  return {
    events: row.events.map((e) => ({
      id: e.id,
      eventType: e.eventType,
      actorType: e.actorType,
      createdAt: e.createdAt,
      metadata: e.metadata && typeof e.metadata === 'object' && !Array.isArray(e.metadata) ? e.metadata : {},
    })),
    hasPrescriptionPdf: row.hasPdf,
  };
}
