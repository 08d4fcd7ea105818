import { desc, eq } from 'drizzle-orm';
import { priceChangeAlerts } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { forClinic } from '../../../platform/db/scoped';
import { totalCount } from '../../../platform/http/pagination';
import { notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmountOrNull } from '../../../platform/values/money';
import type { AlertStatus, ListAlertsQuery, PriceChangeAlert } from './schemas';

const RESOURCE = 'Price-change alert';
type AlertRow = typeof priceChangeAlerts.$inferSelect;

/** The API's alert, field by field. */
export function toAlert(row: AlertRow): PriceChangeAlert {
  return {
    id: row.id,
    productId: row.productId,
    programId: row.programId,
    globalProductId: row.globalProductId,
    direction: row.direction as PriceChangeAlert['direction'],
    previousPharmacyPrice: centsToAmountOrNull(row.previousPharmacyPriceCents),
    newPharmacyPrice: centsToAmountOrNull(row.newPharmacyPriceCents),
    currentProgramFee: centsToAmountOrNull(row.currentProgramFeeCents),
    suggestedProgramFee: centsToAmountOrNull(row.suggestedProgramFeeCents),
    perUnitMarginDelta: centsToAmountOrNull(row.perUnitMarginDeltaCents),
    status: row.status as AlertStatus,
    acknowledgedAt: row.acknowledgedAt ? row.acknowledgedAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Newest first; `count` (the whole filtered set) comes with the rows in the same query. */
export async function listAlerts({ db, clinicId }: HandlerContext, query: ListAlertsQuery) {
  const scoped = forClinic(db, clinicId);
  const rows = await db
    .select({ alert: priceChangeAlerts, total: totalCount() })
    .from(priceChangeAlerts)
    .where(scoped.where(priceChangeAlerts, query.status === 'all' ? undefined : eq(priceChangeAlerts.status, query.status)))
    .orderBy(desc(priceChangeAlerts.createdAt), desc(priceChangeAlerts.id))
    .limit(query.limit);
  return { count: rows[0]?.total ?? 0, alerts: rows.map((r) => toAlert(r.alert)) };
}

/**
 * Acknowledges an open alert. Idempotent: an acknowledged alert stays as it was (its first
 * acknowledgedAt kept) and answers the same. Unknown, malformed and other clinics' ids: 404.
 */
export async function acknowledgeAlert(ctx: HandlerContext, id: string): Promise<{ id: string; status: AlertStatus }> {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound(RESOURCE);
  const now = ctx.now();
  const scoped = forClinic(db, clinicId);
  const [updated] = await db
    .update(priceChangeAlerts)
    .set({ status: 'acknowledged', acknowledgedAt: now })
    .where(scoped.where(priceChangeAlerts, eq(priceChangeAlerts.id, id), eq(priceChangeAlerts.status, 'open')))
    .returning({ id: priceChangeAlerts.id, status: priceChangeAlerts.status });
  const row = updated ?? (await scoped.findById(priceChangeAlerts, id, RESOURCE));
  return { id: row.id, status: row.status as AlertStatus };
}
