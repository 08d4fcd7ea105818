import { desc } from 'drizzle-orm';
import { type IntakeRequestStatus, intakeRequests } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { forClinic } from '../../../platform/db/scoped';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import type { CreateIntakeRequestBody, IntakeRequest } from './schemas';

type Row = typeof intakeRequests.$inferSelect;

const toIntakeRequest = (row: Omit<Row, 'clinicId'>): IntakeRequest => ({
  id: row.id,
  treatmentName: row.treatmentName,
  notes: row.notes,
  status: row.status as IntakeRequestStatus,
  requestedByUserId: row.requestedByUserId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export async function listIntakeRequests({ db, clinicId }: HandlerContext, query: PageQuery) {
  const rows = await db
    .select({
      id: intakeRequests.id,
      treatmentName: intakeRequests.treatmentName,
      notes: intakeRequests.notes,
      status: intakeRequests.status,
      requestedByUserId: intakeRequests.requestedByUserId,
      createdAt: intakeRequests.createdAt,
      updatedAt: intakeRequests.updatedAt,
      total: totalCount(),
    })
    .from(intakeRequests)
    .where(forClinic(db, clinicId).where(intakeRequests))
    .orderBy(desc(intakeRequests.createdAt), desc(intakeRequests.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => forClinic(db, clinicId).count(intakeRequests));
  return { data: page.rows.map(toIntakeRequest), pagination: page.pagination };
}

/** A request made with an API key: no staff user asked, so requestedByUserId is null. Status pending. */
export async function createIntakeRequest(ctx: HandlerContext, body: CreateIntakeRequestBody): Promise<IntakeRequest> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await forClinic(db, clinicId).insert(intakeRequests, {
    treatmentName: body.treatmentName,
    notes: body.notes,
    status: 'pending',
    requestedByUserId: null,
    createdAt: now,
    updatedAt: now,
  });
  return toIntakeRequest(row);
}
