// npx tsx scripts/bench/partitions.ts [--url postgres://postgres@127.0.0.1:5432/partition_bench] [--rows 1000000]
//
// Monthly partitions of request_logs and audit_events (migration 0022) at 1M rows of one clinic, on a
// scratch database it creates anew: migrates it to the schema before 0022, loads `rows` request logs
// spread over 90 days and `rows` audit events over 365 days (through the chain trigger, so the chain is
// valid), prints EXPLAIN (ANALYZE, BUFFERS) of the list queries of GET /api/v1/request-logs (default page,
// a filter, a lookup by request id) and GET /api/v1/audit-events as the services send them, then applies
// 0022 (timed: the conversion of the rows), prints the same plans again, and times the sweep's partition
// maintenance and the chain check.
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import * as nodePg from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from '../../drizzle/schema';
import { getRequestLog, listAuditEvents, listRequestLogs } from '../../src/modules/access';
import { appendAuditEvents, verifyAuditChain } from '../../src/platform/audit/trail';
import type { HandlerContext } from '../../src/platform/context';
import type { Database } from '../../src/platform/db/client';
import { maintainMonthPartitions } from '../../src/platform/partitions';
import { RequestLogWriter } from '../../src/platform/request-log';
import { databaseUrl, withClient } from '../lib/database';
import { MIGRATIONS_FOLDER, migrateDatabase, migrationsBefore } from '../lib/migrations';
import { processCpuMs } from './cpu';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/partition_bench' },
    rows: { type: 'string', default: '1000000' },
  },
});
const url = values.url!;
const rows = Number(values.rows);
const CONVERSION = '0022_monthly_partitions';

const migrateWith = (folder: string) => migrateDatabase(url, folder);

const name = new URL(url).pathname.slice(1);
await withClient(databaseUrl(url, 'postgres'), async (client) => {
  await client.query(`drop database if exists ${name} with (force)`);
  await client.query(`create database ${name}`);
});
const before = migrationsBefore(CONVERSION);
await migrateWith(before);
rmSync(before, { recursive: true, force: true });

// No fsync wait at each commit: the figures are the statements' work, not this machine's disk.
const pool = new pg.Pool({ connectionString: url, max: 2, options: '-c synchronous_commit=off' });
const captured: { sql: string; params: unknown[] }[] = [];
const db = nodePg.drizzle({
  client: pool,
  schema,
  logger: { logQuery: (sql: string, params: unknown[]) => captured.push({ sql, params }) },
}) as unknown as Database;

const q = (sql: string, params: unknown[] = []) => pool.query(sql, params);
const { rows: clinicRows } = await q(`insert into clinics (name, slug) values ('Bench', 'bench-partitions') returning id`);
const clinicId = clinicRows[0].id as string;
const { rows: keyRows } = await q(
  `insert into api_keys (clinic_id, name, kind, key_prefix, key_hash, scopes) values ($1, 'bench', 'secret', 'sk_b', md5(random()::text), '{read}') returning id`,
  [clinicId],
);
const keyId = keyRows[0].id as string;

const seconds = (from: number) => `${((performance.now() - from) / 1000).toFixed(1)} s`;
let t0 = performance.now();
const BATCH = 100_000;
for (let from = 1; from <= rows; from += BATCH) {
  const to = Math.min(rows, from + BATCH - 1);
  await q(
    `insert into request_logs (api_key_id, clinic_id, request_id, method, route, status, duration_ms, created_at, path, error_code, client_ip, user_agent)
     select $1, $2, 'req_' || i, (array['GET','GET','GET','POST','PATCH','DELETE'])[1 + i % 6],
       (array['/api/v1/orders','/api/v1/orders/{id}','/api/v1/products','/api/v1/coupons','/api/v1/patients/{id}'])[1 + i % 5],
       case when i % 50 = 0 then 500 when i % 10 = 0 then 404 else 200 end, 5 + i % 200,
       now() - interval '90 days' + (i::float8 / $3) * interval '90 days', '/api/v1/orders/' || i,
       case when i % 10 = 0 then 'NOT_FOUND' end, '203.0.113.' || (i % 250), 'bench/1.0'
     from generate_series($4::int, $5::int) i`,
    [keyId, clinicId, rows, from, to],
  );
}
console.log(`loaded ${rows} request_logs in ${seconds(t0)}`);
t0 = performance.now();
for (let from = 1; from <= rows; from += BATCH) {
  const to = Math.min(rows, from + BATCH - 1);
  await q(
    `insert into audit_events (clinic_id, created_at, actor_kind, actor_id, actor_label, action, route, target_type, target_id, changes)
     select $1, now() - interval '365 days' + (i::float8 / $2) * interval '365 days', 'key', $3, 'sk_b',
       (array['coupon.updated','order.created','product.updated','patient_data.read'])[1 + i % 4], '/api/v1/coupons/{id}',
       'coupon', 'c' || (i % 5000), jsonb_build_object('discountValue', jsonb_build_object('old', i, 'new', i + 1))
     from generate_series($4::int, $5::int) i`,
    [clinicId, rows, keyId, from, to],
  );
}
console.log(`loaded ${rows} audit_events (through the chain trigger) in ${seconds(t0)}`);
await q('vacuum analyze request_logs, audit_events');

const ctx = { db, clinicId, now: () => new Date() } as unknown as HandlerContext;
const page = { page: 1, limit: 25 };
const requests: [string, () => Promise<unknown>][] = [
  ['GET /api/v1/request-logs (default page)', () => listRequestLogs(ctx, page as never)],
  ['GET /api/v1/request-logs?status=5xx&method=POST', () => listRequestLogs(ctx, { ...page, status: '5xx', method: 'POST' } as never)],
  [`GET /api/v1/request-logs/req_${rows - 10}`, () => getRequestLog(ctx, `req_${rows - 10}`)],
  ['GET /api/v1/audit-events (default page)', () => listAuditEvents(ctx, page as never)],
  ['GET /api/v1/audit-events?action=coupon.updated', () => listAuditEvents(ctx, { ...page, action: 'coupon.updated' } as never)],
];

async function explainAll(label: string) {
  for (const [title, run] of requests) {
    captured.length = 0;
    await run(); // warm, and capture its statement(s)
    const t = performance.now();
    await run();
    const ms = performance.now() - t;
    const { sql, params } = captured[0]!;
    const plan = await q(`explain (analyze, buffers) ${sql}`, params);
    console.log(`\n=== ${label}: ${title} (${ms.toFixed(0)} ms as the service runs it; ${captured.length / 2} statement(s))`);
    console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
}

/**
 * What the writes cost the database, as the app sends them: CPU of the PostgreSQL backend serving them
 * (its /proc schedstat, so time spent waiting for a core on a busy machine is not counted) and wall time,
 * per statement: one audit row per statement (a write's own insert, through the chain trigger), and the
 * request log's batched insert of 100 rows (which also moves the keys' lastUsedAt).
 */
const writePool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0, options: '-c synchronous_commit=off' });
const writeDb = nodePg.drizzle({ client: writePool, schema }) as unknown as Database;
const backendPid = Number((await writePool.query('select pg_backend_pid() as pid')).rows[0].pid);

async function measured(count: number, work: (n: number) => Promise<unknown>): Promise<string> {
  const cpu = processCpuMs(backendPid);
  const t = performance.now();
  for (let n = 0; n < count; n++) await work(n);
  const wallUs = ((performance.now() - t) * 1000) / count;
  const cpuUs = ((processCpuMs(backendPid) - cpu) * 1000) / count;
  return `${cpuUs.toFixed(0)} µs CPU, ${wallUs.toFixed(0)} µs wall`;
}

async function writeCost(label: string) {
  const audit = await measured(2000, (n) =>
    appendAuditEvents(writeDb, [
      { clinicId, actorKind: 'key', actorId: keyId, action: 'coupon.updated', targetType: 'coupon', targetId: `w${n}`, changes: {} },
    ]),
  );
  const writer = new RequestLogWriter({ flushRows: 100, flushAfterMs: 60_000 });
  const batch = await measured(200, async (b) => {
    for (let n = 0; n < 100; n++) {
      writer.add({
        apiKeyId: keyId,
        clinicId,
        requestId: `w${b}_${n}`,
        method: 'GET',
        route: '/api/v1/orders',
        status: 200,
        durationMs: 3,
      });
    }
    await writer.flush(writeDb);
  });
  console.log(`\nwrites, ${label}: audit insert (1 row) ${audit} per statement; request-log batch (100 rows) ${batch} per statement`);
}

/** The retention's cost: the same rows removed (those before the start of last month), in a transaction rolled back. */
async function retentionCost(label: string, statements: string[]) {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const t = performance.now();
    let removed = 0;
    for (const statement of statements) removed += (await client.query(statement)).rowCount ?? 0;
    console.log(`\nretention, ${label}: ${(performance.now() - t).toFixed(0)} ms (${removed} rows by DELETE, or partitions dropped)`);
  } finally {
    await client.query('rollback');
    client.release();
  }
}

await explainAll('before 0022');
await writeCost('before 0022');
// The sweep before 0022: batches of 5,000 deleted by id until none is left (pruneRequestLogs).
const batches = Math.ceil((rows * 40) / 90 / 5000) + 1;
await retentionCost(
  'before 0022, batched DELETE of the rows before last month',
  Array.from(
    { length: batches },
    () =>
      `delete from request_logs where id in (select id from request_logs where created_at < date_trunc('month', now()) - interval '1 month' limit 5000)`,
  ),
);
t0 = performance.now();
await migrateWith(MIGRATIONS_FOLDER);
console.log(`\nmigration 0022 (conversion of ${rows} + ${rows} rows): ${seconds(t0)}`);
await q('analyze request_logs, audit_events');
await explainAll('after 0022');
await writeCost('after 0022 (17 partitions per table)');
await retentionCost('after 0022, the months before last month dropped', [
  `select drop_month_partitions('request_logs', date_trunc('month', now()) - interval '1 month')`,
]);
// Six years of audit months, as the retention keeps them: the chain trigger's look-up of the clinic's
// last row visits every partition's (clinic_id, seq) index.
await q(`select create_month_partition('audit_events', now() - n * interval '1 month') from generate_series(13, 72) n`);
await q('analyze audit_events');
await writeCost('after 0022, audit_events with 77 partitions (six years)');

t0 = performance.now();
await maintainMonthPartitions(db, new Date());
console.log(`\npartition maintenance, nothing to do: ${(performance.now() - t0).toFixed(1)} ms`);
t0 = performance.now();
const check = await verifyAuditChain(db, clinicId);
console.log(`verifyAuditChain after the conversion: ${JSON.stringify(check)} in ${seconds(t0)}`);
await pool.end();
await writePool.end();
