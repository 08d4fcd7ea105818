// DATABASE_URL=... npx tsx scripts/audit-stored-values.ts — read-only: counts the audit rows written before
// the allowlist (issue 37) that still hold a value the rule withholds now (free text, names, URLs...), by
// action, route and field, and the clinics they belong to. Prints counts only, never a value. What to do
// with them: docs/audit-log.md, "Rows written before the allowlist".
import { createApp, loadAreas } from '../src/app';
import { connect } from './lib/database';
import { storedValuesReport } from './lib/recorded-values';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
await loadAreas();
const app = createApp(() => Promise.reject(new Error('the report needs no services')));
const { db, close } = connect(url, 1);
try {
  const report = await storedValuesReport(db, app);
  console.log(`${report.read} write rows read; ${report.rows} hold values withheld now, in ${report.clinics} clinics`);
  for (const [where, rows] of [...report.fields].sort(([, a], [, b]) => b - a)) console.log(`  ${rows}\t${where}`);
} finally {
  await close();
}
