// docs/audit-log.md's tables of what each route records are the route declarations, as
// scripts/recorded-values.ts writes them: a declaration changed without the doc fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recordedValuesSection, SECTION_END, SECTION_START } from '../../../scripts/lib/recorded-values';
import { createApp } from '../../../src/app';

const app = createApp(async () => {
  throw new Error('declarations only');
});

describe('docs/audit-log.md, "What each route records"', () => {
  it('is what the route declarations say (npx tsx scripts/recorded-values.ts rewrites it)', () => {
    const doc = readFileSync(new URL('../../../docs/audit-log.md', import.meta.url), 'utf8');
    const written = doc.slice(doc.indexOf(SECTION_START), doc.indexOf(SECTION_END) + SECTION_END.length);
    expect(written).toBe(recordedValuesSection(app));
  });

  it('names the coupon fields the review found withheld or shown wrongly', () => {
    const section = recordedValuesSection(app);
    const coupon = section.split('\n').find((line) => line.startsWith('| `POST /api/v1/coupons`'))!;
    const [, kept, , withheld] = coupon.split(' | ');
    expect(kept).toContain('`perCustomerLimit`');
    expect(withheld).toContain('`description`');
  });
});
