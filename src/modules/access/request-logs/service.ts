import { and, desc, eq, gte, lte, or, type SQL } from 'drizzle-orm';
import { apiKeys, requestLogs } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { isValidRequestId } from '../../../platform/http/request-id';
import { REQUEST_LOG_API_DAYS } from '../../../platform/request-log';
import { notFound } from '../../../platform/values/errors';
import type { ListRequestLogsQuery, RequestLog } from './schemas';

const RESOURCE = 'Request log';

type Row = typeof requestLogs.$inferSelect;

/** The API's request log, field by field (never a spread row). */
export function toRequestLog(row: Row, keyPrefix: string): RequestLog {
  return {
    requestId: row.requestId,
    clientRequestId: row.clientRequestId,
    createdAt: row.createdAt.toISOString(),
    method: row.method,
    route: row.route,
    path: row.path,
    status: row.status,
    errorCode: row.errorCode,
    durationMs: row.durationMs,
    apiKeyId: row.apiKeyId,
    keyPrefix,
    idempotencyKey: row.idempotencyKey,
    idempotentReplayed: row.idempotentReplayed,
    rateLimitOutcome: row.rateLimited ? 'limited' : 'allowed',
    rateLimitRemaining: row.rateLimitRemaining,
    clientIp: row.clientIp,
    userAgent: row.userAgent,
  };
}

/** The oldest instant the API shows: REQUEST_LOG_API_DAYS before now (older rows wait for the retention sweep). */
const oldestShown = (now: Date) => new Date(now.getTime() - REQUEST_LOG_API_DAYS * 86_400_000);

/** What every query of this resource is limited to: the clinic's rows of the last 30 days. */
function shown(clinicId: string, now: Date): SQL[] {
  return [eq(requestLogs.clinicId, clinicId), gte(requestLogs.createdAt, oldestShown(now))];
}

function statusCondition(status: string): SQL {
  if (/xx$/i.test(status)) {
    const low = Number(status[0]) * 100;
    return and(gte(requestLogs.status, low), lte(requestLogs.status, low + 99))!;
  }
  return eq(requestLogs.status, Number(status));
}

/** The clinic's request logs, newest first; filters by status (code or class), method, route, key and time. */
export async function listRequestLogs(ctx: HandlerContext, query: ListRequestLogsQuery) {
  const { db, clinicId } = ctx;
  const conditions = shown(clinicId, ctx.now());
  if (query.status !== undefined) conditions.push(statusCondition(query.status));
  if (query.method !== undefined) conditions.push(eq(requestLogs.method, query.method));
  if (query.route !== undefined) conditions.push(eq(requestLogs.route, query.route));
  if (query.apiKeyId !== undefined) conditions.push(eq(requestLogs.apiKeyId, query.apiKeyId));
  if (query.createdGte !== undefined) conditions.push(gte(requestLogs.createdAt, new Date(query.createdGte)));
  if (query.createdLte !== undefined) conditions.push(lte(requestLogs.createdAt, new Date(query.createdLte)));
  const where = and(...conditions);
  const rows = await db
    .select({ log: requestLogs, keyPrefix: apiKeys.keyPrefix, total: totalCount() })
    .from(requestLogs)
    // The key is the clinic's (filtered in the join too): a row's key is always its clinic's.
    .innerJoin(apiKeys, and(eq(apiKeys.id, requestLogs.apiKeyId), eq(apiKeys.clinicId, clinicId)))
    .where(where)
    .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => db.$count(requestLogs, where));
  return { data: page.rows.map((r) => toRequestLog(r.log, r.keyPrefix)), pagination: page.pagination };
}

/**
 * One request of the clinic by its id: the API's own, or the client's own X-Request-Id (rows from before
 * issue 37 hold a client's id as their request id). A client may send the same X-Request-Id twice: the
 * newest request with that id is answered. Unknown, older than 30 days and another clinic's ids: the same 404.
 */
export async function getRequestLog(ctx: HandlerContext, requestId: string): Promise<RequestLog> {
  const { db, clinicId } = ctx;
  // An id no request could have (a NUL, a space, 129 characters) is unknown without asking.
  if (!isValidRequestId(requestId)) throw notFound(RESOURCE);
  const [row] = await db
    .select({ log: requestLogs, keyPrefix: apiKeys.keyPrefix })
    .from(requestLogs)
    .innerJoin(apiKeys, and(eq(apiKeys.id, requestLogs.apiKeyId), eq(apiKeys.clinicId, clinicId)))
    .where(and(...shown(clinicId, ctx.now()), or(eq(requestLogs.requestId, requestId), eq(requestLogs.clientRequestId, requestId))))
    .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  return toRequestLog(row.log, row.keyPrefix);
}
