// Affiliates' tax documents (pending -> verified | rejected) and the program's referral tiers.
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { affiliateTaxDocuments, affiliateTiers, type TaxDocumentStatus } from '../../../../drizzle/schema';
import type { Database, Queryable, Transaction } from '../../../platform/db/client';
import { isUniqueViolation } from '../../../platform/db/errors';
import { isoTimestamp, rowsOf } from '../../../platform/db/sql';
import { ApiError, conflict, notFound } from '../../../platform/http/errors';
import { isUuid } from '../../../platform/http/ids';
import { type PageQuery, pageOffset, paginate } from '../../../platform/http/pagination';
import { toHundredths } from './rules';
import { MAX_TIERS, type TaxDocumentData, type TierData } from './schemas';
import { toTier } from './service';

const iso = (column: string) => isoTimestamp(sql.raw(column));

// ---------- tax documents ----------

interface TaxDocumentRow {
  id: string;
  affiliateId: string;
  firstName: string;
  lastName: string;
  email: string;
  documentType: string;
  taxYear: number;
  status: TaxDocumentStatus;
  tinLastFour: string | null;
  submittedAt: string;
  reviewedAt: string | null;
  rejectionReason: string | null;
  total: number;
}

/** Tax documents matching `filter` (alias d), newest submission first, with their affiliate. */
function taxDocumentSelect(clinicId: string, filter: SQL, limit: number, offset: number) {
  return sql`
    select d.id, d.affiliate_id as "affiliateId", a.first_name as "firstName", a.last_name as "lastName", a.email,
      d.document_type as "documentType", d.tax_year as "taxYear", d.status, d.tin_last_four as "tinLastFour",
      ${iso('d.submitted_at')} as "submittedAt", ${iso('d.reviewed_at')} as "reviewedAt", d.rejection_reason as "rejectionReason",
      count(*) over()::int as total
    from affiliate_tax_documents d
    join affiliates a on a.id = d.affiliate_id and a.clinic_id = d.clinic_id
    where d.clinic_id = ${clinicId} and ${filter}
    order by d.submitted_at desc, d.id desc
    limit ${limit} offset ${offset}`;
}

const toTaxDocument = (row: Omit<TaxDocumentRow, 'total'>): TaxDocumentData => ({
  id: row.id,
  affiliate: { id: row.affiliateId, firstName: row.firstName, lastName: row.lastName, email: row.email },
  documentType: row.documentType,
  taxYear: row.taxYear,
  status: row.status,
  tinLastFour: row.tinLastFour,
  submittedAt: row.submittedAt,
  reviewedAt: row.reviewedAt,
  rejectionReason: row.rejectionReason,
});

export async function listTaxDocuments(db: Database, clinicId: string, query: PageQuery & { status?: TaxDocumentStatus }) {
  const filter = query.status ? sql`d.status = ${query.status}` : sql`true`;
  const rows = await rowsOf<TaxDocumentRow>(db, taxDocumentSelect(clinicId, filter, query.limit, pageOffset(query)));
  const page = await paginate(query, rows, () =>
    db.$count(
      affiliateTaxDocuments,
      and(eq(affiliateTaxDocuments.clinicId, clinicId), query.status ? eq(affiliateTaxDocuments.status, query.status) : undefined),
    ),
  );
  return { data: page.rows.map(toTaxDocument), pagination: page.pagination };
}

async function readTaxDocument(db: Queryable, clinicId: string, id: string) {
  const [row] = await rowsOf<TaxDocumentRow>(db, taxDocumentSelect(clinicId, sql`d.id = ${id}`, 1, 0));
  return toTaxDocument(row!);
}

/** Moves a pending document to `to` (409 ILLEGAL_TRANSITION from any other status); 404 when not the clinic's. */
async function review(tx: Transaction, clinicId: string, id: string, to: 'verified' | 'rejected', reason: string | null, now: Date) {
  if (!isUuid(id)) throw notFound('Tax document');
  const [doc] = await tx
    .select({ status: affiliateTaxDocuments.status })
    .from(affiliateTaxDocuments)
    .where(and(eq(affiliateTaxDocuments.clinicId, clinicId), eq(affiliateTaxDocuments.id, id)))
    .for('update');
  if (!doc) throw notFound('Tax document');
  if (doc.status !== 'pending') {
    throw new ApiError(409, 'ILLEGAL_TRANSITION', `Only a pending tax document can be ${to}; this one is ${doc.status}`);
  }
  await tx
    .update(affiliateTaxDocuments)
    .set({ status: to, reviewedAt: now, rejectionReason: reason })
    .where(and(eq(affiliateTaxDocuments.clinicId, clinicId), eq(affiliateTaxDocuments.id, id)));
  return readTaxDocument(tx, clinicId, id);
}

export const verifyTaxDocument = (db: Database, clinicId: string, id: string, now: Date): Promise<TaxDocumentData> =>
  db.transaction((tx) => review(tx, clinicId, id, 'verified', null, now));

export const rejectTaxDocument = (db: Database, clinicId: string, id: string, reason: string, now: Date): Promise<TaxDocumentData> =>
  db.transaction((tx) => review(tx, clinicId, id, 'rejected', reason, now));

// ---------- tiers ----------

const UNIQUE_MIN_INDEX = 'affiliate_tiers_clinic_id_min_active_referrals_key';

/**
 * A tier (201). Another tier of the clinic with the same minActiveReferrals: 409 CONFLICT (the unique
 * index decides, so concurrent creations cannot both win). At most MAX_TIERS per clinic (409 CONFLICT).
 */
export async function createTier(
  db: Database,
  clinicId: string,
  body: { minActiveReferrals: number; percentage: number; label: string },
  now: Date,
): Promise<TierData> {
  try {
    return await db.transaction(async (tx) => {
      const count = await tx.$count(affiliateTiers, eq(affiliateTiers.clinicId, clinicId));
      if (count >= MAX_TIERS) throw conflict('CONFLICT', `A program has at most ${MAX_TIERS} tiers`);
      const [row] = await tx
        .insert(affiliateTiers)
        .values({
          clinicId,
          minActiveReferrals: body.minActiveReferrals,
          percentageHundredths: toHundredths(body.percentage),
          label: body.label,
          createdAt: now,
        })
        .returning();
      return toTier({ ...row!, createdAt: row!.createdAt.toISOString() });
    });
  } catch (error) {
    if (isUniqueViolation(error, UNIQUE_MIN_INDEX)) {
      throw conflict('CONFLICT', `A tier for ${body.minActiveReferrals} active referrals already exists`);
    }
    throw error;
  }
}

/** Deletes a tier; affiliates on it fall back to a lower tier or the program's rates from the next generate. */
export async function deleteTier(db: Database, clinicId: string, id: string) {
  if (!isUuid(id)) throw notFound('Affiliate tier');
  const [deleted] = await db
    .delete(affiliateTiers)
    .where(and(eq(affiliateTiers.clinicId, clinicId), eq(affiliateTiers.id, id)))
    .returning({ id: affiliateTiers.id });
  if (!deleted) throw notFound('Affiliate tier');
  return { id: deleted.id, deleted: true as const };
}
