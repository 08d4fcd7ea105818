// The SQL of the bare Worker (bare-worker.ts): what the API sends for the key lookup, GET
// /api/v1/orders?limit=25 and GET /api/v1/orders/{id}, copied from PostgreSQL's statement log
// (log_statement = all) of a run of the real Worker. The bench checks that the API still sends these
// texts and says so when it no longer does (then copy the new ones here, from its report).

export const KEY_LOOKUP =
  'select "api_keys"."id", "api_keys"."clinic_id", "api_keys"."name", "api_keys"."key_prefix", "api_keys"."kind", "api_keys"."scopes", "api_keys"."is_sandbox", "api_keys"."rate_limit_per_min", "api_keys"."expires_at", "api_keys"."revoked_at", "clinics"."is_active", "clinics"."sandbox_expires_at", "plans"."entitlements" from "api_keys" inner join "clinics" on "clinics"."id" = "api_keys"."clinic_id" left join "plans" on "plans"."id" = "clinics"."plan_id" where "api_keys"."key_hash" = $1 limit $2';

const ORDER_FIELDS = `
  'id', o.id, 'orderNumber', o.order_number, 'status', o.status,
  'totalCents', o.total_cents, 'subtotalCents', o.subtotal_cents, 'discountCents', o.discount_cents,
  'taxCents', o.tax_cents, 'shippingCents', o.shipping_cents, 'brandAmountCents', o.brand_amount_cents,
  'billingInterval', o.billing_interval_months, 'createdAt', to_char((o.created_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'shippedAt', to_char((o.shipped_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'deliveredAt', to_char((o.delivered_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'paidAt', to_char((o.paid_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'fulfillmentType', o.fulfillment_type, 'approvedByDoctor', o.approved_by_doctor, 'feeBreakdown', o.fee_breakdown,`;

export const ORDERS_PAGE = `
    with days as (
      -- A day's slots are peers in the key order: the running sum counts a day's slots together and
      -- the second window sums one day's slots, in the same sort as one row per day (no grouping).
      select key, sum(orders) over (order by key desc) as upto,
        sum(orders) over (order by key desc range between current row and current row) as orders
      from clinic_rollups where clinic_id = $1 and dim = 'day'
    ),
    start as (
      select (key::date + 1)::timestamp at time zone 'UTC' as before, upto - orders as skipped
      from days where upto > $2 order by key desc limit 1
    ),
    page as (
      select id, created_at from orders
      where clinic_id = $3 and created_at < (select before from start)
      order by created_at desc, id desc
      limit $4 offset $5 - (select skipped from start)
    )
    select
      coalesce((select sum("orders") from clinic_rollups where clinic_id = $6 and dim = 'total' and key = ''), 0) as total,
      (select coalesce(json_agg(json_build_object(
        ${ORDER_FIELDS}
        'user', json_build_object('id', pt.id, 'firstName', pt.first_name, 'lastName', pt.last_name, 'email', pt.email),
        'program', case when pr.id is null then null else json_build_object('id', pr.id, 'name', pr.name) end
      ) order by page.created_at desc, page.id desc), '[]'::json)
      from page
      join orders o on o.id = page.id and o.clinic_id = $7
      join patients pt on pt.id = o.patient_id and pt.clinic_id = $8
      left join programs pr on pr.id = o.program_id and pr.clinic_id = $9) as items`;

export const ORDER_DETAIL = `
    select json_build_object(
      ${ORDER_FIELDS}
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
    where o.clinic_id = $1 and o.id = $2`;
