// npm run secrets:reseal — the re-seal step of a root key rotation (docs/secrets.md): with
// ROOT_SECRET_KEY the new root and ROOT_SECRET_KEY_PREVIOUS the old one, re-seals every sealed value
// of DATABASE_URL under the new root, in batches. Safe to run again; prints the counts per column.
import { readRootSecretKeys } from '../src/config';
import { resealAll } from '../src/platform/crypto/reseal';
import { openDatabase } from '../src/platform/db/client';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('Set DATABASE_URL to the database to re-seal, ROOT_SECRET_KEY and ROOT_SECRET_KEY_PREVIOUS to the new and old roots.');
  process.exit(1);
}
const environment =
  process.env.ENVIRONMENT === 'development' || process.env.ENVIRONMENT === 'test' ? process.env.ENVIRONMENT : 'production';
const keys = readRootSecretKeys(process.env, environment);
const batchSize = Number(process.env.RESEAL_BATCH_SIZE) || 500;
const handle = await openDatabase({ url, driver: 'pg' });
try {
  const counts = await resealAll(handle.db, keys, { batchSize });
  console.table(counts);
  const failed = Object.values(counts).reduce((sum, c) => sum + c.failed, 0);
  if (failed > 0) {
    console.error(`${failed} value(s) open under neither root: keep ROOT_SECRET_KEY_PREVIOUS until they are dealt with.`);
    process.exitCode = 1;
  }
} finally {
  await handle.close();
}
