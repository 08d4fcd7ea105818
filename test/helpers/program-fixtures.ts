// Rows the programs tests build on: global products (with a pharmacy), tenant products, templates,
// programs with products, patients and enrollments, titration protocols. Each call makes new rows.
import { randomUUID } from 'node:crypto';
import {
  enrollments,
  globalProducts,
  patients,
  pharmacies,
  pharmacyCoverages,
  programProducts,
  programs,
  programTemplateProducts,
  programTemplates,
  tenantProducts,
} from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';

export { makeTitrationProtocol } from './catalog-fixtures';

const unique = () => randomUUID().slice(0, 8);

/** A global product (pharmacy cost 100.00 by default) with a primary pharmacy unless withCoverage is false. */
export async function makeGlobalProduct(
  db: Database,
  values: Partial<typeof globalProducts.$inferInsert> = {},
  options: { withCoverage?: boolean } = {},
) {
  const suffix = unique();
  const [product] = await db
    .insert(globalProducts)
    .values({
      name: `Product ${suffix}`,
      slug: `product-${suffix}`,
      pharmacyBasePriceCents: 10_000,
      categories: ['weight_loss'],
      ...values,
    })
    .returning();
  if (options.withCoverage ?? true) {
    const [pharmacy] = await db
      .insert(pharmacies)
      .values({ name: `Pharmacy ${suffix}`, slug: `pharmacy-${suffix}` })
      .returning();
    await db
      .insert(pharmacyCoverages)
      .values({ globalProductId: product!.id, pharmacyId: pharmacy!.id, priceCents: product!.pharmacyBasePriceCents });
  }
  return product!;
}

export async function makeTenantProduct(
  db: Database,
  clinicId: string,
  globalProductId: string,
  values: Partial<typeof tenantProducts.$inferInsert> = {},
) {
  const [row] = await db
    .insert(tenantProducts)
    .values({ clinicId, globalProductId, ...values })
    .returning();
  return row!;
}

export async function makeTemplate(
  db: Database,
  products: { globalProductId: string; programBaseFeeCents?: number | null; displayOrder?: number }[],
  values: Partial<typeof programTemplates.$inferInsert> = {},
) {
  const suffix = unique();
  const [template] = await db
    .insert(programTemplates)
    .values({ name: `Template ${suffix}`, slug: `template-${suffix}`, ...values })
    .returning();
  if (products.length) {
    await db.insert(programTemplateProducts).values(
      products.map((p, i) => ({
        templateId: template!.id,
        globalProductId: p.globalProductId,
        displayOrder: p.displayOrder ?? i,
        programBaseFeeCents: p.programBaseFeeCents ?? null,
      })),
    );
  }
  return template!;
}

export type ProductSpec = { globalProductId: string } & Partial<
  Omit<typeof programProducts.$inferInsert, 'clinicId' | 'programId' | 'globalProductId'>
>;

export async function makeProgram(
  db: Database,
  clinicId: string,
  values: Partial<typeof programs.$inferInsert> = {},
  products: ProductSpec[] = [],
) {
  const [program] = await db
    .insert(programs)
    .values({ name: `Program ${unique()}`, ...values, clinicId })
    .returning();
  if (products.length) {
    await db.insert(programProducts).values(products.map((p, i) => ({ displayOrder: i, ...p, clinicId, programId: program!.id })));
  }
  return program!;
}

export async function makePatient(db: Database, clinicId: string, values: Partial<typeof patients.$inferInsert> = {}) {
  const suffix = unique();
  const [patient] = await db
    .insert(patients)
    .values({ firstName: 'Pat', lastName: suffix, email: `pat-${suffix}@example.test`, ...values, clinicId })
    .returning();
  return patient!;
}

/** An enrollment of a new patient (or `patientId`); defaults: active, monthly, 200.00 charged, 50.00 net. */
export async function makeEnrollment(
  db: Database,
  clinicId: string,
  programId: string,
  values: Partial<typeof enrollments.$inferInsert> = {},
) {
  const patientId = values.patientId ?? (await makePatient(db, clinicId)).id;
  const [row] = await db
    .insert(enrollments)
    .values({ chargeAmountCents: 20_000, netAmountCents: 5_000, ...values, patientId, clinicId, programId })
    .returning();
  return row!;
}
