// npx tsx scripts/recorded-values.ts — rewrites the tables of docs/audit-log.md ("What each route
// records") from the route declarations (scripts/lib/recorded-values.ts). Run it after declaring or
// changing a route's recordedValues or its body; test/api/platform/recorded-values-doc.test.ts fails
// until the doc says what the code does.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createApp, loadAreas } from '../src/app';
import { recordedValuesSection, SECTION_END, SECTION_START } from './lib/recorded-values';

await loadAreas();
const app = createApp(() => Promise.reject(new Error('the tables need no services')));
const target = fileURLToPath(new URL('../docs/audit-log.md', import.meta.url));
const doc = readFileSync(target, 'utf8');
const start = doc.indexOf(SECTION_START);
const end = doc.indexOf(SECTION_END);
if (start < 0 || end < start) throw new Error(`${target} has no ${SECTION_START} ... ${SECTION_END} section`);
writeFileSync(target, doc.slice(0, start) + recordedValuesSection(app) + doc.slice(end + SECTION_END.length));
console.log(`${target}: the recorded-values tables rewritten`);
