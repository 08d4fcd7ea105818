// Rows the affiliate tests build on, inserted directly (affiliates, referrals and tax documents are
// created by the affiliates' own portal, not by this API). Each call makes new rows.
import { randomUUID } from 'node:crypto';
import { affiliatePrograms, affiliateReferrals, affiliates, affiliateTaxDocuments } from '../../../drizzle/schema';
import type { Database } from '../../../src/platform/db/client';
import { makeKey, makeTenant } from '../../helpers/factories';
import { makeOrder, type OrderValues } from '../../helpers/order-fixtures';
import { makeEnrollment, makePatient, makeProgram } from '../../helpers/program-fixtures';

const unique = () => randomUUID().slice(0, 8);

/** A clinic whose plan has the Affiliates entitlement (or not), with a read+write and a read-only key. */
export async function affiliateTenant(db: Database, options: { entitled?: boolean } = {}) {
  const tenant = await makeTenant(db, { entitlements: options.entitled === false ? [] : ['affiliates'] });
  const readOnly = await makeKey(db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, clinicId: tenant.clinic.id, readKey: readOnly.raw };
}

export async function makeProgramConfig(db: Database, clinicId: string, values: Partial<typeof affiliatePrograms.$inferInsert> = {}) {
  const [row] = await db
    .insert(affiliatePrograms)
    .values({ enabled: true, firstOrderRateHundredths: 2_000, defaultRateHundredths: 1_000, ...values, clinicId })
    .returning();
  return row!;
}

export async function makeAffiliate(db: Database, clinicId: string, values: Partial<typeof affiliates.$inferInsert> = {}) {
  const suffix = unique();
  const [row] = await db
    .insert(affiliates)
    .values({ firstName: 'Aff', lastName: suffix, email: `aff-${suffix}@partners.test`, referralCode: `REF${suffix}`, ...values, clinicId })
    .returning();
  return row!;
}

/** A patient referred by the affiliate at `referredAt` (a new patient unless patientId is given). */
export async function makeReferral(db: Database, clinicId: string, affiliateId: string, referredAt: Date, patientId?: string) {
  const patient = patientId ?? (await makePatient(db, clinicId)).id;
  const [row] = await db.insert(affiliateReferrals).values({ clinicId, affiliateId, patientId: patient, referredAt }).returning();
  return row!;
}

/** A paid order of the patient (subtotal in cents) paid at `paidAt`. */
export const paidOrder = (
  db: Database,
  clinicId: string,
  patientId: string,
  subtotalCents: number,
  paidAt: Date,
  values: OrderValues = {},
) => makeOrder(db, clinicId, { patientId, subtotalCents, paidAt, status: 'delivered', createdAt: paidAt, ...values });

/** Makes `count` of the affiliate's referred patients active (an active enrollment each). */
export async function activeReferrals(db: Database, clinicId: string, affiliateId: string, count: number, referredAt: Date) {
  const program = await makeProgram(db, clinicId);
  for (let i = 0; i < count; i++) {
    const referral = await makeReferral(db, clinicId, affiliateId, referredAt);
    await makeEnrollment(db, clinicId, program.id, { patientId: referral.patientId, status: 'active' });
  }
}

export async function makeTaxDocument(
  db: Database,
  clinicId: string,
  affiliateId: string,
  values: Partial<typeof affiliateTaxDocuments.$inferInsert> = {},
) {
  const [row] = await db
    .insert(affiliateTaxDocuments)
    .values({ documentType: 'w9', taxYear: 2029, tinLastFour: '1234', ...values, clinicId, affiliateId })
    .returning();
  return row!;
}
