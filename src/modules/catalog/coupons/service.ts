import { and, desc, eq, getTableColumns, isNull, type SQL, sql } from 'drizzle-orm';
import { coupons } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { isUniqueViolation } from '../../../platform/db/errors';
import { forClinic } from '../../../platform/db/scoped';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { isoOrNull } from '../../../platform/values/dates';
import { conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmount, centsToAmountOrNull } from '../../../platform/values/money';
import { assertCouponTerms, couponInvalidReasons, fromHundredths, REASON_MESSAGES, toHundredths } from './rules';
import type {
  COUPON_SCOPES,
  Coupon,
  CouponDiscountType,
  CouponPerformance,
  CouponValidation,
  CreateCouponBody,
  OVER_MARGIN_BEHAVIORS,
  UpdateCouponBody,
} from './schemas';

type CouponRow = typeof coupons.$inferSelect;
type Scope = (typeof COUPON_SCOPES)[number];
type OverMargin = (typeof OVER_MARGIN_BEHAVIORS)[number];

const RESOURCE = 'Coupon';
const UNIQUE_CODE_INDEX = 'coupons_clinic_id_code_key';

/**
 * Redemptions of the coupon in the current row (a correlated subquery on the coupon_id index). The
 * names are written qualified: Drizzle leaves columns unqualified in a select list, where "id" would
 * mean the redemption's id.
 */
const redemptionCount = (): SQL<number> =>
  sql<number>`(select count(*)::int from "coupon_redemptions" r where r."clinic_id" = "coupons"."clinic_id" and r."coupon_id" = "coupons"."id")`;

/** Every column of the coupon and its redemption count: what a Coupon response is built from. */
const withCount = { ...getTableColumns(coupons), redemptionCount: redemptionCount() };
type CouponWithCount = CouponRow & { redemptionCount: number };

/** The clinic's coupons that are not deleted (a deleted coupon answers 404 everywhere). */
const live = (db: Queryable, clinicId: string, ...conditions: SQL[]) =>
  forClinic(db, clinicId).where(coupons, isNull(coupons.deletedAt), ...conditions);

/** The API's coupon, field by field (never a spread row). */
export function toCoupon(row: CouponWithCount): Coupon {
  return {
    id: row.id,
    code: row.code,
    description: row.description,
    discountType: row.discountType as CouponDiscountType,
    discountValue: fromHundredths(row.discountValueHundredths),
    startsAt: isoOrNull(row.startsAt),
    expiresAt: isoOrNull(row.expiresAt),
    isActive: row.isActive,
    scope: row.scope as Scope,
    overMarginBehavior: row.overMarginBehavior as OverMargin,
    maxRedemptions: row.maxRedemptions,
    perCustomerLimit: row.perCustomerLimit,
    minOrderAmount: centsToAmountOrNull(row.minOrderAmountCents),
    redemptionCount: row.redemptionCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The unique index on (clinic_id, lower(code)) refused the row: another live coupon has the code. */
const isDuplicateCode = (error: unknown) => isUniqueViolation(error, UNIQUE_CODE_INDEX);

const codeTaken = (code: string) => conflict('CONFLICT', `A coupon with code "${code}" already exists`);

export async function listCoupons({ db, clinicId }: HandlerContext, query: PageQuery) {
  const rows = await db
    .select({ ...withCount, total: totalCount() })
    .from(coupons)
    .where(live(db, clinicId))
    .orderBy(desc(coupons.createdAt), desc(coupons.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => forClinic(db, clinicId).count(coupons, isNull(coupons.deletedAt)));
  return { data: page.rows.map(toCoupon), pagination: page.pagination };
}

export async function getCoupon({ db, clinicId }: HandlerContext, id: string): Promise<Coupon> {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [found] = await db
    .select(withCount)
    .from(coupons)
    .where(live(db, clinicId, eq(coupons.id, id)))
    .limit(1);
  if (!found) throw notFound(RESOURCE);
  return toCoupon(found);
}

export async function createCoupon({ db, clinicId }: HandlerContext, body: CreateCouponBody): Promise<Coupon> {
  const values = {
    code: body.code,
    description: body.description ?? null,
    discountType: body.discountType,
    discountValueHundredths: toHundredths(body.discountValue),
    startsAt: body.startsAt ? new Date(body.startsAt) : null,
    expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
    isActive: body.isActive,
    scope: body.scope,
    overMarginBehavior: body.overMarginBehavior,
    maxRedemptions: body.maxRedemptions,
    perCustomerLimit: body.perCustomerLimit,
    minOrderAmountCents: body.minOrderAmount,
  };
  assertCouponTerms(values);
  try {
    const row = await forClinic(db, clinicId).insert(coupons, values);
    return toCoupon({ ...row, redemptionCount: 0 });
  } catch (error) {
    if (isDuplicateCode(error)) throw codeTaken(body.code);
    throw error;
  }
}

/**
 * A partial update: the fields sent replace the stored ones and the merged coupon is validated as a
 * whole (a new discountType is checked against the stored discountValue, a new expiresAt against the
 * stored startsAt). The row is locked while it is merged so concurrent updates cannot combine into
 * terms neither of them checked.
 */
export async function updateCoupon(ctx: HandlerContext, id: string, body: UpdateCouponBody): Promise<Coupon> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  try {
    return await db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(coupons)
        .where(live(tx, clinicId, eq(coupons.id, id)))
        .for('update');
      if (!current) throw notFound(RESOURCE);
      // The audit row shows the old values beside the new (docs/audit-log.md): the row is read anyway.
      if (ctx.auditNote) ctx.auditNote.before = toCoupon({ ...current, redemptionCount: 0 }) as unknown as Record<string, unknown>;
      const changes: Partial<typeof coupons.$inferInsert> = { updatedAt: now };
      if (body.code !== undefined) changes.code = body.code;
      if (body.description !== undefined) changes.description = body.description;
      if (body.discountType !== undefined) changes.discountType = body.discountType;
      if (body.discountValue !== undefined) changes.discountValueHundredths = toHundredths(body.discountValue);
      if (body.startsAt !== undefined) changes.startsAt = body.startsAt === null ? null : new Date(body.startsAt);
      if (body.expiresAt !== undefined) changes.expiresAt = body.expiresAt === null ? null : new Date(body.expiresAt);
      if (body.isActive !== undefined) changes.isActive = body.isActive;
      if (body.scope !== undefined) changes.scope = body.scope;
      if (body.overMarginBehavior !== undefined) changes.overMarginBehavior = body.overMarginBehavior;
      if (body.maxRedemptions !== undefined) changes.maxRedemptions = body.maxRedemptions;
      if (body.perCustomerLimit !== undefined) changes.perCustomerLimit = body.perCustomerLimit;
      if (body.minOrderAmount !== undefined) changes.minOrderAmountCents = body.minOrderAmount;
      const merged = { ...current, ...changes } as CouponRow;
      assertCouponTerms({
        discountType: merged.discountType as CouponDiscountType,
        discountValueHundredths: merged.discountValueHundredths,
        startsAt: merged.startsAt,
        expiresAt: merged.expiresAt,
      });
      const [updated] = await tx
        .update(coupons)
        .set(changes)
        .where(and(eq(coupons.clinicId, clinicId), eq(coupons.id, id)))
        .returning(withCount);
      return toCoupon(updated!);
    });
  } catch (error) {
    if (isDuplicateCode(error)) throw codeTaken(body.code ?? '');
    throw error;
  }
}

/** Soft delete: the redemptions stay for reporting, the coupon answers 404 from now on and its code is free. */
export async function deleteCoupon(ctx: HandlerContext, id: string) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [deleted] = await db
    .update(coupons)
    .set({ deletedAt: now, updatedAt: now })
    .where(live(db, clinicId, eq(coupons.id, id)))
    .returning({ id: coupons.id });
  if (!deleted) throw notFound(RESOURCE);
  return { id: deleted.id, deleted: true as const };
}

interface Totals {
  redemptions: number;
  uniqueCustomers: number;
  discountCents: number;
  orderAmountCents: number;
}

const totalsOf = (t: Totals) => ({
  redemptions: t.redemptions,
  uniqueCustomers: t.uniqueCustomers,
  totalDiscount: centsToAmount(Number(t.discountCents)),
  totalOrderAmount: centsToAmount(Number(t.orderAmountCents)),
});

/** Redemption totals and a month-by-month breakdown (UTC months), from coupon_redemptions, in one query. */
export async function couponPerformance({ db, clinicId }: HandlerContext, id: string): Promise<CouponPerformance> {
  if (!isUuid(id)) throw notFound(RESOURCE);
  // Qualified by hand, for the reason given at redemptionCount().
  const ofThisCoupon = sql.raw(`r."clinic_id" = "coupons"."clinic_id" and r."coupon_id" = "coupons"."id"`);
  const totals = sql.raw(`'redemptions', count(*)::int,
    'uniqueCustomers', count(distinct r."patient_id")::int,
    'discountCents', coalesce(sum(r."discount_cents"), 0),
    'orderAmountCents', coalesce(sum(r."order_amount_cents"), 0)`);
  const [found] = await db
    .select({
      id: coupons.id,
      code: coupons.code,
      maxRedemptions: coupons.maxRedemptions,
      totals: sql<Totals & { first: string | null; last: string | null }>`(
        select json_build_object(${totals}, 'first', min(r."redeemed_at"), 'last', max(r."redeemed_at"))
        from "coupon_redemptions" r where ${ofThisCoupon})`,
      byMonth: sql<{ month: string; totals: Totals }[]>`(
        select coalesce(json_agg(m order by m.month), '[]'::json) from (
          select to_char(r."redeemed_at" at time zone 'UTC', 'YYYY-MM') as month, json_build_object(${totals}) as totals
          from "coupon_redemptions" r where ${ofThisCoupon} group by 1
        ) m)`,
    })
    .from(coupons)
    .where(live(db, clinicId, eq(coupons.id, id)))
    .limit(1);
  if (!found) throw notFound(RESOURCE);
  const { totals: all, byMonth } = found;
  const count = all.redemptions;
  return {
    couponId: found.id,
    code: found.code,
    ...totalsOf(all),
    averageDiscount: count ? centsToAmount(Math.round(Number(all.discountCents) / count)) : null,
    averageOrderAmount: count ? centsToAmount(Math.round(Number(all.orderAmountCents) / count)) : null,
    maxRedemptions: found.maxRedemptions,
    remainingRedemptions: found.maxRedemptions === null ? null : Math.max(0, found.maxRedemptions - count),
    firstRedeemedAt: all.first ? new Date(all.first).toISOString() : null,
    lastRedeemedAt: all.last ? new Date(all.last).toISOString() : null,
    byMonth: byMonth.map((m) => ({ month: m.month, ...totalsOf(m.totals) })),
  };
}

/**
 * Whether the clinic's coupon with this code (ignoring case; deleted coupons do not exist) can be
 * redeemed now, and if not why. One query on the unique (clinic_id, lower(code)) index.
 */
export async function validateCoupon(ctx: HandlerContext, code: string): Promise<CouponValidation> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const [row] = await db
    .select(withCount)
    .from(coupons)
    .where(live(db, clinicId, sql`lower(${coupons.code}) = lower(${code})`))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  const reasons = couponInvalidReasons(row, row.redemptionCount, now);
  return {
    valid: reasons.length === 0,
    reason: reasons[0] ?? null,
    reasons,
    message: reasons.length ? REASON_MESSAGES[reasons[0]!] : 'The coupon is valid',
    coupon: {
      id: row.id,
      code: row.code,
      discountType: row.discountType as CouponDiscountType,
      discountValue: fromHundredths(row.discountValueHundredths),
      scope: row.scope as Scope,
      overMarginBehavior: row.overMarginBehavior as OverMargin,
      startsAt: isoOrNull(row.startsAt),
      expiresAt: isoOrNull(row.expiresAt),
      isActive: row.isActive,
      minOrderAmount: centsToAmountOrNull(row.minOrderAmountCents),
      perCustomerLimit: row.perCustomerLimit,
      maxRedemptions: row.maxRedemptions,
      redemptionCount: row.redemptionCount,
      remainingRedemptions: row.maxRedemptions === null ? null : Math.max(0, row.maxRedemptions - row.redemptionCount),
    },
  };
}
