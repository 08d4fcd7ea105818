import { sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../platform/context';
import { isoTimestamp as iso, num, patientMatches, rowsOf } from '../../../platform/db/sql';
import { pageOffset, pagination } from '../../../platform/http/pagination';
import { centsToAmount } from '../../../platform/values/money';
import { totalRollup } from '../orders/rollups';
import type { Customer, ListCustomersQuery } from './schemas';

/** Refunds that moved money back (as in the order stats). */
const REFUNDED = sql`'succeeded'`;

interface Row {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  phoneNumber: string | null;
  createdAt: string;
  orderCount: number;
  revenueCents: number | string;
  categories: string[];
  hasActiveSubscription: boolean;
}

/**
 * The clinic's patients, newest first, in one statement: the page is chosen first, and only the
 * page's patients get their totals (correlated subqueries on the orders' (clinic_id, patient_id)
 * index, the items of those orders and the active-enrollment index) — never a query per row. Without
 * a search the total is the clinic's patient count from its rollup row (exact); a search counts its matches.
 */
export async function listCustomers(ctx: HandlerContext, query: ListCustomersQuery) {
  const { db, clinicId } = ctx;
  const searches = [query.search, query.q].filter((s): s is string => Boolean(s));
  const conditions = searches.map((search) => sql`and ${patientMatches(sql`p`, search)}`);
  // Emails are stored lower-cased (a check): the unique (clinic_id, email) index finds it.
  if (query.email) conditions.push(sql`and p.email = ${query.email.toLowerCase()}`);
  const filtered = conditions.length > 0;
  const match = sql.join(conditions, sql` `);
  const [row] = await rowsOf<{ total: number | string; items: Row[] }>(
    db,
    sql`
    with matched as (
      select p.id, p.created_at from patients p where p.clinic_id = ${clinicId} ${match}
    ),
    page as (
      select id, created_at from matched order by created_at desc, id desc limit ${query.limit} offset ${pageOffset(query)}
    )
    select
      ${filtered ? sql`(select count(*) from matched)` : totalRollup(clinicId, 'patients')} as total,
      (select coalesce(json_agg(json_build_object(
          'id', p.id, 'firstName', p.first_name, 'lastName', p.last_name, 'email', p.email, 'phoneNumber', p.phone_number,
          'createdAt', ${iso(sql`p.created_at`)},
          'orderCount', (select count(*) from orders o where o.clinic_id = ${clinicId} and o.patient_id = p.id),
          'revenueCents', (
            select coalesce(sum(o.total_cents - coalesce(r.amount_cents, 0)), 0)
            from orders o
            left join refunds r on r.order_id = o.id and r.clinic_id = ${clinicId} and r.status = ${REFUNDED}
            where o.clinic_id = ${clinicId} and o.patient_id = p.id and o.paid_at is not null),
          'categories', (
            select coalesce(array_agg(distinct c order by c), '{}')
            from orders o
            join order_items oi on oi.clinic_id = ${clinicId} and oi.order_id = o.id
            join global_products gp on gp.id = oi.global_product_id
            cross join lateral unnest(gp.categories) as c
            where o.clinic_id = ${clinicId} and o.patient_id = p.id),
          'hasActiveSubscription', exists (
            select 1 from enrollments e where e.clinic_id = ${clinicId} and e.patient_id = p.id and e.status = 'active')
        ) order by page.created_at desc, page.id desc), '[]'::json)
        from page join patients p on p.id = page.id) as items`,
  );
  const data: Customer[] = row!.items.map((c) => ({
    id: c.id,
    firstName: c.firstName,
    lastName: c.lastName,
    email: c.email,
    phoneNumber: c.phoneNumber,
    createdAt: c.createdAt,
    orderCount: num(c.orderCount),
    totalRevenue: centsToAmount(num(c.revenueCents)),
    categories: c.categories,
    hasActiveSubscription: c.hasActiveSubscription,
  }));
  return { data, pagination: pagination(query, num(row!.total)) };
}
