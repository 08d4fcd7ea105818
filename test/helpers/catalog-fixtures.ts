// Rows of the shared catalogues and of a clinic's products, for the catalog and products tests.
// Shared rows have no clinic: each test makes its own (unique names) and finds them by id.
import { randomUUID } from 'node:crypto';
import {
  formStructures,
  globalProductImageOverrides,
  globalProducts,
  pharmacies,
  pharmacyCoverages,
  productPharmacyCoverages,
  products,
  programProducts,
  programs,
  programTemplateProducts,
  programTemplates,
  questionnaires,
  tenantProductSelections,
  tenantProducts,
  titrationProtocols,
} from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';

const unique = () => randomUUID().slice(0, 8);

export async function makePharmacy(db: Database, name = `Pharmacy ${unique()}`) {
  const [row] = await db
    .insert(pharmacies)
    .values({ name, slug: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${unique()}` })
    .returning();
  return row!;
}

/** A global product; `coverages` adds pharmacy_coverages rows in order (each created a moment apart). */
export async function makeGlobalProduct(
  db: Database,
  values: Partial<typeof globalProducts.$inferInsert> = {},
  coverages: { pharmacyId: string; role?: 'primary' | 'backup'; priceCents?: number; customName?: string | null }[] = [],
) {
  const suffix = unique();
  const [row] = await db
    .insert(globalProducts)
    .values({ name: `Global ${suffix}`, slug: `global-${suffix}`, pharmacyBasePriceCents: 10_000, ...values })
    .returning();
  const rows = [];
  for (const [i, c] of coverages.entries()) {
    const [coverage] = await db
      .insert(pharmacyCoverages)
      .values({
        globalProductId: row!.id,
        pharmacyId: c.pharmacyId,
        role: c.role ?? 'primary',
        priceCents: c.priceCents ?? row!.pharmacyBasePriceCents,
        customName: c.customName === undefined ? `${row!.name} @${i}` : c.customName,
        createdAt: new Date(Date.now() + i),
      })
      .returning();
    rows.push(coverage!);
  }
  return { ...row!, coverages: rows };
}

/** One of the clinic's own products, with optional product pharmacy coverages. */
export async function makeOwnProduct(
  db: Database,
  clinicId: string,
  values: Partial<typeof products.$inferInsert> = {},
  coverages: { pharmacyId: string; role?: string; priceCents?: number; customName?: string | null }[] = [],
) {
  const suffix = unique();
  const [row] = await db
    .insert(products)
    .values({ name: `Own ${suffix}`, slug: `own-${suffix}`, pharmacyPriceCents: 2_500, ...values, clinicId })
    .returning();
  const rows = [];
  for (const c of coverages) {
    const [coverage] = await db
      .insert(productPharmacyCoverages)
      .values({
        clinicId,
        productId: row!.id,
        pharmacyId: c.pharmacyId,
        role: c.role ?? 'primary',
        priceCents: c.priceCents ?? 2_500,
        customName: c.customName ?? null,
      })
      .returning();
    rows.push(coverage!);
  }
  return { ...row!, coverages: rows };
}

export async function makeTenantProduct(
  db: Database,
  clinicId: string,
  globalProductId: string,
  values: Partial<typeof tenantProducts.$inferInsert> = {},
) {
  const [row] = await db
    .insert(tenantProducts)
    .values({ facilitationFeeCents: 1_500, ...values, clinicId, globalProductId })
    .returning();
  return row!;
}

export async function makeImageOverride(db: Database, clinicId: string, globalProductId: string, imageUrl: string) {
  const [row] = await db.insert(globalProductImageOverrides).values({ clinicId, globalProductId, imageUrl }).returning();
  return row!;
}

export async function makeQuestionnaireSelection(db: Database, clinicId: string, tenantProductId: string) {
  const [questionnaire] = await db
    .insert(questionnaires)
    .values({ clinicId, name: `Intake ${unique()}` })
    .returning();
  await db.insert(tenantProductSelections).values({ clinicId, tenantProductId, questionnaireId: questionnaire!.id });
  return questionnaire!;
}

export async function makeTemplate(
  db: Database,
  values: Partial<typeof programTemplates.$inferInsert> = {},
  items: { globalProductId: string; displayOrder?: number; programBaseFeeCents?: number | null; isPatientVisible?: boolean }[] = [],
) {
  const suffix = unique();
  const [row] = await db
    .insert(programTemplates)
    .values({ name: `Template ${suffix}`, slug: `template-${suffix}`, ...values })
    .returning();
  for (const item of items) {
    await db.insert(programTemplateProducts).values({
      templateId: row!.id,
      globalProductId: item.globalProductId,
      displayOrder: item.displayOrder ?? 0,
      programBaseFeeCents: item.programBaseFeeCents ?? null,
      isPatientVisible: item.isPatientVisible ?? true,
    });
  }
  return row!;
}

export async function makeTitrationProtocol(db: Database, values: Partial<typeof titrationProtocols.$inferInsert> = {}) {
  const [row] = await db
    .insert(titrationProtocols)
    .values({
      name: `Protocol ${unique()}`,
      maxLevel: 2,
      levels: [
        { level: 1, dose: '1 mg', weeks: 4 },
        { level: 2, dose: '2 mg', weeks: 0 },
      ],
      ...values,
    })
    .returning();
  return row!;
}

export async function makeFormStructure(db: Database, values: Partial<typeof formStructures.$inferInsert> = {}) {
  const suffix = unique();
  const [row] = await db
    .insert(formStructures)
    .values({ name: `Form ${suffix}`, slug: `form-${suffix}`, category: 'intake', structure: { steps: ['a', 'b'] }, ...values })
    .returning();
  return row!;
}

/** A program of the clinic using the given global products (program_products rows). */
export async function makeProgramUsing(
  db: Database,
  clinicId: string,
  globalProductIds: string[],
  values: Partial<typeof programs.$inferInsert> = {},
) {
  const [program] = await db
    .insert(programs)
    .values({ name: `Program ${unique()}`, state: 'live', ...values, clinicId })
    .returning();
  for (const [i, globalProductId] of globalProductIds.entries()) {
    await db.insert(programProducts).values({ clinicId, programId: program!.id, globalProductId, displayOrder: i });
  }
  return program!;
}
