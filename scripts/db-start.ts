// npm run db:start — the database for plain `npx wrangler dev` (README, "Plain wrangler dev"): starts the
// embedded PostgreSQL 17 (data in .data/postgres, the same as `npm run dev`; port DEV_DATABASE_PORT or
// 54329, the one wrangler.toml's local Hyperdrive connection names), creates brand_admin, applies the
// migrations, loads the demo data (idempotently), prints the DATABASE_URL to put in .dev.vars and keeps
// PostgreSQL running until Ctrl-C. Not with `npm run dev` at the same time: both use that data folder.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, ensureDatabase } from './lib/database';
import { isPortFree, startEmbeddedPostgres } from './lib/embedded-postgres';
import { migrateDatabase } from './lib/migrations';
import { DEMO_LOGINS, DEMO_PASSWORD, seedDemoData } from './seed';

const root = fileURLToPath(new URL('..', import.meta.url));
const port = Number(process.env.DEV_DATABASE_PORT ?? 54329);
const dataDir = join(root, '.data', 'postgres');

if (process.env.ENVIRONMENT === 'production') throw new Error('Refusing to load demo data with ENVIRONMENT=production.');
if (!(await isPortFree(port))) {
  console.error(
    `[db] Port ${port} is taken: a PostgreSQL (\`npm run db:start\` or \`npm run dev\`) may already be running there. ` +
      'Stop it, or set DEV_DATABASE_PORT to another port (and use that port in DATABASE_URL).',
  );
  process.exit(1);
}

console.log(`[db] Starting PostgreSQL 17 on 127.0.0.1:${port} (data in ${dataDir})…`);
const postgres = await startEmbeddedPostgres({ dataDir, port, persistent: true, maxConnections: 100 });
let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  await postgres.stop().catch((error: unknown) => console.error('[db] stopping PostgreSQL failed:', error));
  console.log('[db] Stopped.');
  process.exit(code);
}
// embedded-postgres's exit hook would exit at once on a signal; ours stops PostgreSQL first (as dev.ts does).
const exitHook = createRequire(import.meta.resolve('embedded-postgres'))('async-exit-hook') as { unhookEvent(event: string): void };
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  exitHook.unhookEvent(signal);
  process.on(signal, () => void stop(0));
}

try {
  const target = new URL(postgres.url);
  target.pathname = '/brand_admin';
  const url = target.toString();
  await ensureDatabase(url);
  await migrateDatabase(url);
  const { db, close } = connect(url, 1);
  try {
    await seedDemoData(db);
  } finally {
    await close();
  }
  console.log('[db] Migrations applied, demo data loaded.');
  console.log(`\nPut this line in .dev.vars (copied from .dev.vars.example), then run \`npx wrangler dev\`:\n\nDATABASE_URL=${url}\n`);
  console.log(`Demo logins (password ${DEMO_PASSWORD}): ${DEMO_LOGINS.map((login) => login.email).join(', ')}`);
  console.log('PostgreSQL keeps running until Ctrl-C.');
} catch (error) {
  console.error('[db] Could not prepare the database:', error);
  await stop(1);
}
