// npm run seed:large -- --orders 100000 [--measure] [--force]
// Loads ONE large clinic (its own plan, clinic, owner-less read/write secret key, programs, patients,
// enrollments) with N orders and their parts (items, payments, addresses, events, some lab legs,
// visits, refunds, held titration schedules), fast: multi-row INSERT ... SELECT over generate_series,
// in batches of 50,000 orders. Prints the clinic and its raw API key at the end.
// --measure then times GET /api/v1/orders page 1 and page 2000, /orders/summary, /orders/stats,
// /orders/needs-attention, /customers page 1, /dashboard/overview and the filtered lists (FILTERED
// below) through the app (createApp with the Worker's real per-request services), the same service
// statements on a warm connection, and prints EXPLAIN (ANALYZE) of each statement (the filtered ones too). `--clinic <id> --measure` measures a clinic loaded
// earlier (a new key is made for it) instead of loading one.
// DATABASE_URL defaults to the dev server's embedded database; a non-loopback host is refused
// unless --force. Development only.
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { createApp, loadAreas } from '../../src/app';
import { isLoopbackHost } from '../../src/config';
import { listContacts } from '../../src/modules/crm';
import {
  dashboardMetrics,
  dashboardOverview,
  listCustomers,
  listOrders,
  needsAttention,
  orderStats,
  orderSummary,
  revenueChart,
} from '../../src/modules/orders';
import { generateApiKey } from '../../src/platform/auth/api-key-format';
import type { HandlerContext } from '../../src/platform/context';
import type { Database } from '../../src/platform/db/client';
import { workerServices } from '../../src/platform/services';
import { connect } from '../lib/database';

const BATCH = 50_000;
const DEFAULT_URL = 'postgres://postgres:postgres@127.0.0.1:54329/brand_admin';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const flag = (name: string) => process.argv.includes(`--${name}`);

const orderCount = Number(arg('orders') ?? 10_000);
if (!Number.isInteger(orderCount) || orderCount < 1 || orderCount > 5_000_000) {
  console.error('--orders must be an integer from 1 to 5,000,000');
  process.exit(1);
}
const url = process.env.DATABASE_URL ?? DEFAULT_URL;
const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
if (!isLoopbackHost(host) && !flag('force')) {
  console.error(`Refusing to load test data into ${host}: not this machine (pass --force to insist).`);
  process.exit(1);
}
if (process.env.ENVIRONMENT === 'production') {
  console.error('Refusing to load test data with ENVIRONMENT=production.');
  process.exit(1);
}

const STATES = [
  'CA',
  'CA',
  'CA',
  'TX',
  'TX',
  'FL',
  'FL',
  'NY',
  'NY',
  'PA',
  'IL',
  'OH',
  'GA',
  'NC',
  'MI',
  'NJ',
  'VA',
  'WA',
  'AZ',
  'MA',
  'TN',
  'IN',
  'MO',
  'MD',
];
const STATUSES = [
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'shipped',
  'shipped',
  'sent_to_pharmacy',
  'doctor_approved',
  'awaiting_doctor_review',
  'paid',
  'paid',
  'awaiting_lab_results',
  'pending_payment',
  'payment_failed',
  'cancelled',
  'refunded',
  'doctor_denied',
  'delivered',
  'shipped',
];
const LAB_STAGES = ['requisition_created', 'shipped_to_patient', 'delivered_to_patient', 'shipped_to_lab', 'received_by_lab', 'results'];
const VISIT_STATUSES = ['not_booked', 'booked', 'no_show', 'concluded', 'cancelled'];
const lit = (values: string[]) => `array[${values.map((v) => `'${v}'`).join(',')}]`;

const client = new pg.Client({ connectionString: url });
await client.connect();
const q = (text: string, values: unknown[] = []) => client.query(text, values);
// The rows are consistent by construction, so a superuser session skips the per-row foreign-key and
// rollup triggers while loading (about 4x faster); the clinic's rollups are recounted at the end either
// way (recount_clinic_rollups, migration 0012). Without superuser rights the triggers keep them instead.
await q(`set session_replication_role = replica`).catch(() => undefined);
const started = Date.now();
const step = async (label: string, work: () => Promise<unknown>) => {
  const t0 = Date.now();
  await work();
  console.log(`  ${label}: ${Date.now() - t0} ms`);
};

if (arg('clinic')) {
  // --clinic <id> --measure: measure a clinic loaded earlier (with new keys).
  const measured = arg('clinic')!;
  const { rows } = await q(`select count(*)::int as n from orders where clinic_id = $1`, [measured]);
  console.log(`Measuring clinic ${measured} (${rows[0].n.toLocaleString('en-US')} orders).`);
  await measure(measured);
  await client.end();
  process.exit(0);
}

const suffix = `${orderCount}-${Date.now().toString(36)}`;
console.log(`Loading a clinic with ${orderCount.toLocaleString('en-US')} orders into ${host}…`);
const {
  rows: [plan],
} = await q(`insert into plans (code, name) values ($1, $2) returning id`, [`large-${suffix}`, `Large ${suffix}`]);
const {
  rows: [clinic],
} = await q(`insert into clinics (name, slug, mode, plan_id) values ($1, $2, 'live', $3) returning id`, [
  `Large Clinic ${suffix}`,
  `large-${suffix}`,
  plan.id,
]);
const clinicId: string = clinic.id;
const key = await generateApiKey('secret', false);
await q(
  `insert into api_keys (clinic_id, name, kind, key_prefix, key_hash, scopes, is_sandbox, expires_at)
   values ($1, 'seed:large', 'secret', $2, $3, '{read,write}', false, now() + interval '365 days')`,
  [clinicId, key.keyPrefix, key.keyHash],
);

const patientCount = Math.max(100, Math.ceil(orderCount / 4));
await step(`programs, products, ${patientCount} patients, enrollments`, async () => {
  await q(
    `insert into programs (clinic_id, name, state, is_active) select $1, 'Large program ' || g, 'live', true from generate_series(1, 5) g`,
    [clinicId],
  );
  const { rowCount } = await q(`select 1 from global_products limit 1`);
  if (!rowCount) {
    await q(`insert into global_products (name, slug, categories, pharmacy_base_price_cents)
             select 'Large product ' || g, 'large-product-' || g || '-${suffix}', array['cat_' || (g % 3)], 5000 from generate_series(1, 5) g`);
  }
  await q(
    `insert into patients (clinic_id, first_name, last_name, email, phone_number, created_at)
     select $1, 'Patient', 'Number ' || g, 'patient' || g || '@large.test', '+1555' || lpad(g::text, 7, '0'), now() - (g || ' minutes')::interval
     from generate_series(1, $2::int) g`,
    [clinicId, patientCount],
  );
  await q(
    `insert into enrollments (clinic_id, patient_id, program_id, status, charge_amount_cents, net_amount_cents)
     select $1, p.id, pr.id, case when p.rn % 2 = 0 then 'active' else 'cancelled' end, 19900, 6000
     from (select id, row_number() over (order by id) rn from patients where clinic_id = $1) p
     join (select id, row_number() over (order by id) rn from programs where clinic_id = $1) pr on pr.rn = p.rn % 5 + 1
     where p.rn % 3 = 0`,
    [clinicId],
  );
});

const productCount = Number((await q(`select count(*) as n from global_products`)).rows[0].n);

for (let from = 1; from <= orderCount; from += BATCH) {
  const to = Math.min(orderCount, from + BATCH - 1);
  await step(`orders ${from}–${to} with items, payments, addresses, events, lab legs, visits`, async () => {
    await q('begin');
    await q(
      `insert into orders (clinic_id, order_number, patient_id, program_id, status, subtotal_cents, discount_cents, tax_cents, shipping_cents,
         total_cents, brand_amount_cents, fee_breakdown, billing_interval_months, fulfillment_type, approved_by_doctor, shipping_state,
         prescription_pdf_key, paid_at, shipped_at, delivered_at, cancelled_at, refunded_at, created_at, updated_at)
       select $1, 'LRG-' || g, p.id, pr.id, s.status, m.sub, m.disc, 0, m.ship, m.total, m.brand,
         jsonb_build_object('subtotal', m.sub, 'discount', m.disc, 'tax', 0, 'shipping', m.ship, 'total', m.total,
           'pharmacyCost', m.pharm, 'doctorFee', m.doc, 'processorFee', m.proc, 'platformFee', m.plat, 'brandAmount', m.brand),
         case when g % 4 = 0 then 3 else 1 end, 'shipping', s.status not in ('pending_payment', 'payment_failed', 'paid', 'awaiting_doctor_review', 'awaiting_lab_results', 'doctor_denied', 'cancelled'),
         case when g % 9973 = 0 then 'AK' when g % 7919 = 0 then 'WY' else (${lit(STATES)})[g % ${STATES.length} + 1] end,
         case when s.status in ('doctor_approved', 'sent_to_pharmacy', 'shipped', 'delivered') then 'rx/' || g || '.pdf' end,
         case when s.status not in ('pending_payment', 'payment_failed') then c.at + interval '5 minutes' end,
         case when s.status in ('shipped', 'delivered') then c.at + interval '2 days' end,
         case when s.status = 'delivered' then c.at + interval '5 days' end,
         case when s.status = 'cancelled' then c.at + interval '1 day' end,
         case when s.status = 'refunded' then c.at + interval '3 days' end,
         c.at, c.at
       from generate_series($2::int, $3::int) g
       cross join lateral (select (${lit(STATUSES)})[g % ${STATUSES.length} + 1] as status) s
       cross join lateral (select now() - ((($4::int - g)::float8 / $4::int) * interval '730 days') as at) c
       cross join lateral (
         select x.sub, x.disc, x.ship, x.sub - x.disc + x.ship as total,
           round((x.sub - x.disc) * 0.4)::int as pharm, round((x.sub - x.disc) * 0.1)::int as doc,
           round((x.sub - x.disc + x.ship) * 0.03)::int as proc, round((x.sub - x.disc) * 0.05)::int as plat,
           (x.sub - x.disc + x.ship) - round((x.sub - x.disc) * 0.4)::int - round((x.sub - x.disc) * 0.1)::int
             - round((x.sub - x.disc + x.ship) * 0.03)::int - round((x.sub - x.disc) * 0.05)::int - x.ship as brand
         from (select 9900 + ((g::bigint * 7919) % 30000)::int as sub, case when g % 4 = 0 then 1000 else 0 end as disc, case when g % 5 = 0 then 500 else 0 end as ship) x
       ) m
       join (select id, row_number() over (order by id) - 1 as rn from patients where clinic_id = $1) p on p.rn = g % $5::int
       join (select id, row_number() over (order by id) - 1 as rn from programs where clinic_id = $1) pr on pr.rn = g % 5`,
      [clinicId, from, to, orderCount, patientCount],
    );
    // The batch's orders, by their number.
    const batch = `from orders o where o.clinic_id = $1 and o.order_number in (select 'LRG-' || g from generate_series($2::int, $3::int) g)`;
    await q(
      `insert into order_items (clinic_id, order_id, global_product_id, product_name, quantity, unit_price_cents, total_price_cents)
       select $1, o.id, gp.id, gp.name, 1, o.subtotal_cents, o.subtotal_cents ${batch.replace(
         'from orders o',
         `from orders o
       cross join lateral (select id, name from global_products order by slug offset (abs(hashtext(o.order_number)) % ${productCount}) limit 1) gp`,
       )}`,
      [clinicId, from, to],
    );
    await q(
      `insert into payments (clinic_id, order_id, status, payment_method, amount_cents, failure_reason, failed_at, succeeded_at, created_at)
       select $1, o.id, 'failed', 'card', o.total_cents, 'card_declined', o.created_at + interval '1 minute', null, o.created_at + interval '1 minute'
       ${batch} and (o.status = 'payment_failed' or right(o.order_number, 2) = '00')`,
      [clinicId, from, to],
    );
    await q(
      `insert into payments (clinic_id, order_id, status, payment_method, amount_cents, succeeded_at, created_at)
       select $1, o.id, case when o.status = 'refunded' then 'refunded' else 'succeeded' end, 'card', o.total_cents, o.paid_at, o.paid_at
       ${batch} and o.paid_at is not null`,
      [clinicId, from, to],
    );
    await q(
      `insert into shipping_addresses (clinic_id, order_id, address, city, state, zip_code)
       select $1, o.id, o.order_number || ' Main St', 'Springfield', o.shipping_state, '10001' ${batch}`,
      [clinicId, from, to],
    );
    await q(
      `insert into order_events (clinic_id, order_id, event_type, actor_type, metadata, created_at)
       select $1, o.id, 'order.created', 'patient', '{}'::jsonb, o.created_at ${batch}
       union all
       select $1, o.id, 'order.paid', 'processor', jsonb_build_object('amountCents', o.total_cents), o.paid_at ${batch} and o.paid_at is not null`,
      [clinicId, from, to],
    );
    await q(
      `insert into lab_legs (clinic_id, order_id, stage, requisition_created_at, delivered_to_patient_at, received_by_lab_at, results_available_at,
         kit_to_patient_carrier, kit_to_patient_tracking_number)
       select $1, o.id, st.stage, o.created_at, o.created_at + interval '3 days',
         case when st.i >= 5 then o.created_at + interval '6 days' end, case when st.i = 6 then o.created_at + interval '9 days' end,
         'ups', 'KIT' || o.order_number
       ${batch.replace(
         'from orders o',
         `from orders o cross join lateral (select (${lit(LAB_STAGES)})[abs(hashtext(o.order_number)) % 6 + 1] as stage,
         abs(hashtext(o.order_number)) % 6 + 1 as i) st`,
       )} and right(o.order_number, 1) = '3'`,
      [clinicId, from, to],
    );
    await q(
      `insert into visits (clinic_id, order_id, status, booking_required, scheduled_at, last_synced_at)
       select $1, o.id, (${lit(VISIT_STATUSES)})[abs(hashtext(o.order_number)) % 5 + 1],
         case when right(o.order_number, 2) = '07' then null else true end, o.created_at + interval '2 days', o.created_at + interval '1 day'
       ${batch} and right(o.order_number, 1) = '7'`,
      [clinicId, from, to],
    );
    await q(
      `insert into refunds (clinic_id, order_id, amount_cents, reason, created_at)
       select $1, o.id, o.total_cents, 'requested', o.refunded_at ${batch} and o.status = 'refunded'`,
      [clinicId, from, to],
    );
    await q('commit');
  });
}

await step('refund requests, held titration schedules, rollups recounted, ANALYZE', async () => {
  await q(
    `insert into refund_requests (clinic_id, order_id, patient_id, reason, status, created_at)
     select $1, o.id, o.patient_id, 'changed my mind', (array['pending', 'approved', 'denied'])[abs(hashtext(o.order_number)) % 3 + 1], o.created_at + interval '1 day'
     from orders o where o.clinic_id = $1 and o.status in ('refunded', 'delivered') and right(o.order_number, 2) = '11'`,
    [clinicId],
  );
  const { rowCount } = await q(`select 1 from titration_protocols limit 1`);
  if (!rowCount) await q(`insert into titration_protocols (name, levels, max_level) values ('Large protocol', '[]'::jsonb, 4)`);
  await q(
    `insert into titration_schedules (clinic_id, order_id, patient_id, program_id, titration_protocol_id, current_level, max_level, status,
       next_revisit_due_at, held_since)
     select $1, o.id, o.patient_id, o.program_id, (select id from titration_protocols order by name limit 1), 2, 4, 'held',
       o.created_at + interval '30 days', o.created_at + interval '20 days'
     from orders o where o.clinic_id = $1 and o.status = 'delivered' and right(o.order_number, 2) = '42'`,
    [clinicId],
  );
  await q(`select recount_clinic_rollups($1)`, [clinicId]);
  await q(`set session_replication_role = origin`).catch(() => undefined);
  for (const table of [
    'clinic_rollups',
    'order_rollup_facts',
    'patient_rollup_facts',
    'orders',
    'order_items',
    'payments',
    'shipping_addresses',
    'order_events',
    'lab_legs',
    'visits',
    'refunds',
    'refund_requests',
    'titration_schedules',
    'patients',
    'enrollments',
  ]) {
    await q(`vacuum analyze ${table}`);
  }
});
console.log(`Loaded in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
console.log(`clinic ${clinicId} (large-${suffix})`);
console.log(`API key (read, write): ${key.raw}`);

if (flag('measure')) await measure(clinicId);
await client.end();

/** Times reads through the app with the Worker's per-request services, and explains the list's page query. */
async function measure(clinicId: string) {
  await loadAreas();
  const app = createApp(workerServices);
  const env = { DATABASE_URL: url, ENVIRONMENT: 'development' };
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException() {}, props: {} };
  // Windowed reads: a year of whole UTC days, a 90-day window between two instants (partial edges),
  // the dashboard's periods (ending now) and the revenue chart by day and by week.
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const { rows: programRows } = await q(`select id from programs where clinic_id = $1 order by name limit 1`, [clinicId]);
  const programId = String(programRows[0]?.id);
  const on = (db: Database) => ({ db, clinicId, now: () => new Date() }) as HandlerContext;
  const page = { page: 1, limit: 25 };
  // Each filtered read as a request path and as its service call (for its EXPLAIN).
  const FILTERED: [string, (db: Database) => Promise<unknown>][] = [
    ['/api/v1/orders?status=pending_payment', (db) => listOrders(on(db), { ...page, status: ['pending_payment'] })],
    ['/api/v1/orders?status=paid,shipped,delivered', (db) => listOrders(on(db), { ...page, status: ['paid', 'shipped', 'delivered'] })],
    [`/api/v1/orders?programId=${programId}`, (db) => listOrders(on(db), { ...page, programId })],
    [`/api/v1/orders?status=paid&programId=${programId}`, (db) => listOrders(on(db), { ...page, status: ['paid'], programId })],
    [
      `/api/v1/orders?createdGte=${day(30)}&createdLte=${day(1)}`,
      (db) => listOrders(on(db), { ...page, createdGte: day(30), createdLte: day(1) }),
    ],
    ['/api/v1/orders?q=example', (db) => listOrders(on(db), { ...page, q: 'example' })],
    ['/api/v1/orders?q=LRG-4242', (db) => listOrders(on(db), { ...page, q: 'LRG-4242' })],
    ['/api/v1/orders?q=patient42@', (db) => listOrders(on(db), { ...page, q: 'patient42@' })],
    ['/api/v1/orders?q=large.test', (db) => listOrders(on(db), { ...page, q: 'large.test' })],
    ['/api/v1/customers?q=example', (db) => listCustomers(on(db), { ...page, q: 'example' })],
    ['/api/v1/customers?q=patient42@', (db) => listCustomers(on(db), { ...page, q: 'patient42@' })],
    ['/api/v1/contacts?q=example', (db) => listContacts(on(db), { ...page, q: 'example' })],
    ['/api/v1/contacts?q=patient42@', (db) => listContacts(on(db), { ...page, q: 'patient42@' })],
  ];
  const instant = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000 - 1_234_567).toISOString();
  const yearOfDays = `startDate=${day(400)}&endDate=${day(36)}`;
  const instants = `startDate=${encodeURIComponent(instant(120))}&endDate=${encodeURIComponent(instant(30))}`;
  const windowedPaths = [
    `/api/v1/orders/summary?${yearOfDays}`,
    `/api/v1/orders/summary?${instants}`,
    `/api/v1/orders/stats?${instants}`,
    '/api/v1/dashboard/metrics?period=30d',
    '/api/v1/dashboard/metrics?period=365d',
    '/api/v1/dashboard/revenue-chart?period=90d',
    '/api/v1/dashboard/revenue-chart?period=365d',
  ];
  // The deep page is always page 2000 of 25 (orders 49,976-50,000): past the end at 10k orders.
  const deepPage = 2000;
  const paths = [
    '/api/v1/orders?page=1',
    `/api/v1/orders?page=${deepPage}&limit=25`,
    '/api/v1/orders/summary',
    '/api/v1/orders/stats',
    '/api/v1/customers?page=1',
    '/api/v1/orders/needs-attention',
    '/api/v1/dashboard/overview',
    ...windowedPaths,
    // The list filters (docs/orders.md, "Filters"): a status or a program alone totals from the
    // rollups; the others count their matches. `q=example` matches nothing here (the generated emails
    // are patientN@large.test), `patient42@` one patient, `LRG-4242` order numbers, `large.test` every order.
    ...FILTERED.map(([path]) => path),
  ];
  console.log(`\nTimings through the app (each request opens its own connection, as a Worker does), median of 21 after 2 warm-ups:`);
  for (const path of paths) {
    // A key per read, so the 23 requests of each stay within the per-key rate limit.
    const pathKey = await generateApiKey('secret', false);
    await q(
      `insert into api_keys (clinic_id, name, kind, key_prefix, key_hash, scopes, is_sandbox, expires_at)
       values ($1, 'seed:large measure', 'secret', $2, $3, '{read,write}', false, now() + interval '1 day')`,
      [clinicId, pathKey.keyPrefix, pathKey.keyHash],
    );
    const times: number[] = [];
    for (let i = 0; i < 23; i++) {
      const t0 = performance.now();
      const res = await app.request(path, { headers: { 'x-api-key': pathKey.raw } }, env, ctx as never);
      await res.text();
      const elapsed = performance.now() - t0;
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      if (i >= 2) times.push(elapsed);
      await Promise.all(pending.splice(0));
    }
    times.sort((a, b) => a - b);
    console.log(`  GET ${path.padEnd(42)} median ${times[10]!.toFixed(1)} ms (min ${times[0]!.toFixed(1)}, max ${times[20]!.toFixed(1)})`);
  }
  // The same reads as service calls on one warm connection: the statement's own time, without the
  // per-request connect and key lookup.
  const warm = connect(url, 1);
  // The reads take a handler context; of it they use only the database, the clinic and the clock.
  const calls: [string, () => Promise<unknown>][] = [
    ['listOrders page 1', () => listOrders(on(warm.db), { page: 1, limit: 25 })],
    [`listOrders page ${deepPage}`, () => listOrders(on(warm.db), { page: deepPage, limit: 25 })],
    ['orderSummary', () => orderSummary(on(warm.db), {})],
    ['orderStats', () => orderStats(on(warm.db), {})],
    ['listCustomers page 1', () => listCustomers(on(warm.db), { page: 1, limit: 25 })],
    ['needsAttention', () => needsAttention(on(warm.db))],
    ['dashboardOverview', () => dashboardOverview(on(warm.db))],
  ];
  console.log(`\nThe service's one statement on a warm connection, median of 21 after 2 warm-ups:`);
  for (const [label, call] of calls) {
    const times: number[] = [];
    for (let i = 0; i < 23; i++) {
      const t0 = performance.now();
      await call();
      if (i >= 2) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`  ${label.padEnd(24)} median ${times[10]!.toFixed(1)} ms (min ${times[0]!.toFixed(1)}, max ${times[20]!.toFixed(1)})`);
  }
  await warm.close();
  // EXPLAIN (ANALYZE) of each read's statement, as the service sends it (captured with its parameters).
  let captured: { query: string; params: unknown[] } | null = null;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const explaining = drizzle({
    client: pool,
    logger: {
      logQuery: (query, params) => {
        captured = { query, params };
      },
    },
  }) as unknown as Database;
  const explained: [string, (db: Database) => Promise<unknown>][] = [
    ['listOrders page 1', (db) => listOrders(on(db), { page: 1, limit: 25 })],
    [`listOrders page ${deepPage}`, (db) => listOrders(on(db), { page: deepPage, limit: 25 })],
    ['orderSummary', (db) => orderSummary(on(db), {})],
    ['orderStats', (db) => orderStats(on(db), {})],
    ['listCustomers page 1', (db) => listCustomers(on(db), { page: 1, limit: 25 })],
    ['needsAttention', (db) => needsAttention(on(db))],
    ['dashboardOverview', (db) => dashboardOverview(on(db))],
    ['orderSummary (a year of days)', (db) => orderSummary(on(db), { startDate: day(400), endDate: day(36) })],
    ['orderSummary (90 days, instants)', (db) => orderSummary(on(db), { startDate: instant(120), endDate: instant(30) })],
    ['dashboardMetrics 30d', (db) => dashboardMetrics(on(db), { period: '30d', clinicId: undefined })],
    ['revenueChart 90d', (db) => revenueChart(on(db), { period: '90d', clinicId: undefined })],
    ...FILTERED.map(([path, call]): [string, (db: Database) => Promise<unknown>] => [path.replace('/api/v1', 'GET '), call]),
  ];
  for (const [label, call] of explained) {
    captured = null;
    await call(explaining);
    const statement = captured as { query: string; params: unknown[] } | null;
    if (!statement) continue;
    const { rows } = await q(`explain (analyze, buffers, costs off, timing on, summary on) ${statement.query}`, statement.params);
    console.log(`\nEXPLAIN (ANALYZE) of ${label}:`);
    for (const row of rows) console.log(`  ${row['QUERY PLAN']}`);
  }
  await pool.end();
}
