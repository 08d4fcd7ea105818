import { and, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import { auditEvents } from '../../../../drizzle/schema';
import { auditEventId, verifyAuditChain } from '../../../platform/audit/trail';
import type { HandlerContext } from '../../../platform/context';
import { toCsv } from '../../../platform/http/csv';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { badRequest } from '../../../platform/values/errors';
import type { AuditEvent, ExportAuditEventsQuery, ListAuditEventsQuery } from './schemas';

type Row = typeof auditEvents.$inferSelect;

const view = (r: Row): AuditEvent => ({
  id: auditEventId(r.seq),
  seq: r.seq,
  createdAt: r.createdAt.toISOString(),
  actor: { kind: r.actorKind, id: r.actorId, label: r.actorLabel },
  ip: r.ip,
  userAgent: r.userAgent,
  requestId: r.requestId,
  action: r.action,
  route: r.route,
  targetType: r.targetType,
  targetId: r.targetId,
  changes: r.changes,
  prevHash: r.prevHash,
  hash: r.hash,
});

function conditions(clinicId: string, q: Partial<ListAuditEventsQuery>): SQL[] {
  const where = [eq(auditEvents.clinicId, clinicId)];
  if (q.actorId) where.push(eq(auditEvents.actorId, q.actorId));
  if (q.action) where.push(eq(auditEvents.action, q.action));
  if (q.targetType) where.push(eq(auditEvents.targetType, q.targetType));
  if (q.targetId) where.push(eq(auditEvents.targetId, q.targetId));
  if (q.createdGte) where.push(gte(auditEvents.createdAt, new Date(q.createdGte)));
  if (q.createdLte) where.push(lte(auditEvents.createdAt, new Date(q.createdLte)));
  return where;
}

/** The clinic's audit events, newest first (by their place in the chain), filtered. */
export async function listAuditEvents(ctx: HandlerContext, query: ListAuditEventsQuery) {
  const where = and(...conditions(ctx.clinicId, query));
  const rows = await ctx.db
    .select({ row: auditEvents, total: totalCount() })
    .from(auditEvents)
    .where(where)
    .orderBy(desc(auditEvents.seq))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, async () => ctx.db.$count(auditEvents, where));
  return { data: page.rows.map(({ row }) => view(row)), pagination: page.pagination };
}

export const verifyAuditEvents = (ctx: HandlerContext) => verifyAuditChain(ctx.db, ctx.clinicId);

/** The most rows one export answers; a longer range is refused (export it in parts). */
export const MAX_EXPORT_ROWS = 50_000;

const CSV_HEADER = [
  'id',
  'seq',
  'createdAt',
  'actorKind',
  'actorId',
  'actorLabel',
  'ip',
  'userAgent',
  'requestId',
  'action',
  'route',
  'targetType',
  'targetId',
  'changes',
  'prevHash',
  'hash',
] as const;

/** The events of a time range as CSV, oldest first (the chain's order), through the neutralising writer. */
export async function exportAuditEvents(ctx: HandlerContext, query: ExportAuditEventsQuery): Promise<string> {
  const rows = await ctx.db
    .select()
    .from(auditEvents)
    .where(and(...conditions(ctx.clinicId, query)))
    .orderBy(auditEvents.seq)
    .limit(MAX_EXPORT_ROWS + 1);
  if (rows.length > MAX_EXPORT_ROWS) {
    throw badRequest(`The range holds more than ${MAX_EXPORT_ROWS} events: narrow createdGte/createdLte and export it in parts`);
  }
  return toCsv(
    CSV_HEADER,
    rows.map((r) => [
      auditEventId(r.seq),
      r.seq,
      r.createdAt.toISOString(),
      r.actorKind,
      r.actorId,
      r.actorLabel,
      r.ip,
      r.userAgent,
      r.requestId,
      r.action,
      r.route,
      r.targetType,
      r.targetId,
      JSON.stringify(r.changes),
      r.prevHash,
      r.hash,
    ]),
  );
}
