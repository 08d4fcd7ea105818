// npx tsx scripts/bench/rollup-contention.ts [--connections 12] [--seconds 5] [--think 2]
// Concurrent order writes in ONE clinic: each connection loops BEGIN; insert an order; (think ms,
// the app's next round trip); mark it paid; COMMIT, for a few seconds. Reports committed
// transactions per second, how often a sampled backend was waiting on a lock (pg_stat_activity,
// every 5 ms), and deadlocks. The rollup triggers run in every transaction, so this measures how
// writers of one clinic queue on its counter rows (docs/orders.md, "Rollups"). Loopback only.
import pg from 'pg';
import { isLoopbackHost } from '../../src/config';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const connections = arg('connections', 12);
const seconds = arg('seconds', 5);
const think = arg('think', 2);
const url = process.env.DATABASE_URL;
if (!url || !isLoopbackHost(new URL(url).hostname)) {
  console.error('Set DATABASE_URL to a database on this machine.');
  process.exit(1);
}

const admin = new pg.Client({ connectionString: url });
await admin.connect();
const suffix = Math.random().toString(36).slice(2, 8);
const {
  rows: [clinic],
} = await admin.query(`insert into clinics (name, slug) values ('Contention', 'contention-' || $1::text) returning id`, [suffix]);
const {
  rows: [patient],
} = await admin.query(
  `insert into patients (clinic_id, first_name, last_name, email) values ($1, 'C', 'P', 'c-' || $2::text || '@x.test') returning id`,
  [clinic.id, suffix],
);
const deadlocksBefore = Number(
  (await admin.query(`select deadlocks from pg_stat_database where datname = current_database()`)).rows[0].deadlocks,
);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stop = false;
let committed = 0;
let failed = 0;
const latencies: number[] = [];
const pids: number[] = [];
async function writer(n: number) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  pids.push((await c.query('select pg_backend_pid() as pid')).rows[0].pid);
  let i = 0;
  while (!stop) {
    const t0 = performance.now();
    try {
      await c.query('begin');
      const {
        rows: [o],
      } = await c.query(
        `insert into orders (clinic_id, patient_id, order_number, subtotal_cents, total_cents, brand_amount_cents, fee_breakdown, shipping_state)
         values ($1, $2, $3, 10000, 10000, 6000, '{"pharmacyCost": 2000}', 'CA') returning id`,
        [clinic.id, patient.id, `C-${suffix}-${n}-${i++}`],
      );
      if (think) await sleep(think);
      await c.query(`update orders set status = 'paid', paid_at = now() where id = $1`, [o.id]);
      await c.query('commit');
      committed++;
      latencies.push(performance.now() - t0);
    } catch {
      failed++;
      await c.query('rollback').catch(() => undefined);
    }
  }
  await c.end();
}

const sampler = (async () => {
  let samples = 0;
  let waiting = 0;
  while (!stop) {
    if (pids.length === connections) {
      const { rows } = await admin.query(
        `select count(*) filter (where wait_event_type = 'Lock') as w from pg_stat_activity where pid = any($1)`,
        [pids],
      );
      samples += connections;
      waiting += Number(rows[0].w);
    }
    await sleep(5);
  }
  return { samples, waiting };
})();

const started = performance.now();
const writers = Array.from({ length: connections }, (_, n) => writer(n));
await sleep(seconds * 1000);
stop = true;
await Promise.all(writers);
const elapsed = (performance.now() - started) / 1000;
const { samples, waiting } = await sampler;
const deadlocks =
  Number((await admin.query(`select deadlocks from pg_stat_database where datname = current_database()`)).rows[0].deadlocks) -
  deadlocksBefore;
// The counters must equal a recount after all that (a cheap end-to-end check of the run).
const { rows: check } = await admin.query(
  `select (select coalesce(sum(orders), 0) from clinic_rollups where clinic_id = $1 and dim = 'total') as counted,
     (select count(*) from orders where clinic_id = $1) as actual`,
  [clinic.id],
);
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]?.toFixed(1);
console.log(
  `connections ${connections}, think ${think} ms, ${elapsed.toFixed(1)} s: ${committed} committed (${(committed / elapsed).toFixed(0)}/s), ` +
    `${failed} failed, ${deadlocks} deadlocks; tx latency p50 ${pct(0.5)} ms p95 ${pct(0.95)} ms; ` +
    `lock-waiting ${((100 * waiting) / Math.max(1, samples)).toFixed(0)}% of ${samples} backend samples; ` +
    `rollup orders ${check[0].counted} / orders ${check[0].actual}`,
);
await admin.query(`delete from clinics where id = $1`, [clinic.id]).catch(() => undefined);
await admin.end();
