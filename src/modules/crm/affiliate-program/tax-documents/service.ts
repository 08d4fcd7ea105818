// Affiliates' tax documents (pending -> verified | rejected).
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { affiliateTaxDocuments, type TaxDocumentStatus } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { Queryable, Transaction } from '../../../../platform/db/client';
import { isoTimestamp, rowsOf } from '../../../../platform/db/sql';
import { type PageQuery, pageOffset, paginate } from '../../../../platform/http/pagination';
import { ApiError, notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import type { TaxDocumentData } from './schemas';

const iso = (column: string) => isoTimestamp(sql.raw(column));

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

export async function listTaxDocuments({ db, clinicId }: HandlerContext, query: PageQuery & { status?: TaxDocumentStatus }) {
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

export function verifyTaxDocument(ctx: HandlerContext, id: string): Promise<TaxDocumentData> {
  const now = ctx.now();
  return ctx.db.transaction((tx) => review(tx, ctx.clinicId, id, 'verified', null, now));
}

export function rejectTaxDocument(ctx: HandlerContext, id: string, reason: string): Promise<TaxDocumentData> {
  const now = ctx.now();
  return ctx.db.transaction((tx) => review(tx, ctx.clinicId, id, 'rejected', reason, now));
}
