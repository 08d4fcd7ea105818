// A payout's state moves (docs/affiliates.md, "Payouts"): approve, mark paid and exclude commissions
// move it through pending -> approved -> paid, each in one transaction under the payout's lock.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { affiliateCommissions, affiliatePayouts } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { Transaction } from '../../../../platform/db/client';
import { ApiError, invalidField, notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { RESOURCE, readPayout } from './list';
import type { PayoutData } from './schemas';

const illegalTransition = (message: string) => new ApiError(409, 'ILLEGAL_TRANSITION', message);

/** The payout locked for the rest of the transaction, or 404. */
async function lockPayout(tx: Transaction, clinicId: string, id: string) {
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await tx
    .select({ id: affiliatePayouts.id, status: affiliatePayouts.status })
    .from(affiliatePayouts)
    .where(and(eq(affiliatePayouts.clinicId, clinicId), eq(affiliatePayouts.id, id)))
    .for('update');
  if (!row) throw notFound(RESOURCE);
  return row;
}

/** pending -> approved; any other status answers 409 ILLEGAL_TRANSITION. */
export async function approvePayout(ctx: HandlerContext, id: string): Promise<PayoutData> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const payout = await lockPayout(tx, clinicId, id);
    if (payout.status !== 'pending') throw illegalTransition(`Only a pending payout can be approved; this one is ${payout.status}`);
    await tx.update(affiliatePayouts).set({ status: 'approved', approvedAt: now, updatedAt: now }).where(eq(affiliatePayouts.id, id));
    return readPayout(tx, clinicId, id);
  });
}

/** approved -> paid, with the notes; its included commissions become paid. Otherwise 409 ILLEGAL_TRANSITION. */
export async function markPayoutPaid(ctx: HandlerContext, id: string, notes: string | undefined): Promise<PayoutData> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const payout = await lockPayout(tx, clinicId, id);
    if (payout.status !== 'approved') throw illegalTransition(`Only an approved payout can be marked paid; this one is ${payout.status}`);
    await tx
      .update(affiliatePayouts)
      .set({ status: 'paid', paidAt: now, updatedAt: now, ...(notes !== undefined ? { notes: notes === '' ? null : notes } : {}) })
      .where(eq(affiliatePayouts.id, id));
    await tx
      .update(affiliateCommissions)
      .set({ status: 'paid' })
      .where(
        and(
          eq(affiliateCommissions.clinicId, clinicId),
          eq(affiliateCommissions.payoutId, id),
          eq(affiliateCommissions.status, 'included'),
        ),
      );
    return readPayout(tx, clinicId, id);
  });
}

/**
 * Excludes commissions from a pending payout (409 ILLEGAL_TRANSITION otherwise). Every id must be a
 * commission of this payout (else 400 naming the others, nothing changed); ones already excluded stay
 * so. Excluded commissions keep their payoutId (they are listed with the payout, status excluded) and
 * are never paid; the payout's amount is recomputed from what stays included, in the same transaction.
 */
export async function excludeCommissions(ctx: HandlerContext, id: string, commissionIds: string[]): Promise<PayoutData> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const payout = await lockPayout(tx, clinicId, id);
    if (payout.status !== 'pending')
      throw illegalTransition(`Commissions can be excluded only from a pending payout; this one is ${payout.status}`);
    const wanted = [...new Set(commissionIds.map((c) => c.toLowerCase()))];
    const found = await tx
      .select({ id: affiliateCommissions.id })
      .from(affiliateCommissions)
      .where(
        and(eq(affiliateCommissions.clinicId, clinicId), eq(affiliateCommissions.payoutId, id), inArray(affiliateCommissions.id, wanted)),
      );
    const known = new Set(found.map((f) => f.id));
    const strangers = wanted.filter((c) => !known.has(c));
    if (strangers.length) {
      throw invalidField('body.commissionIds', `not commissions of this payout: ${strangers.join(', ')}`);
    }
    await tx
      .update(affiliateCommissions)
      .set({ status: 'excluded' })
      .where(
        and(eq(affiliateCommissions.clinicId, clinicId), eq(affiliateCommissions.payoutId, id), inArray(affiliateCommissions.id, wanted)),
      );
    await tx.execute(sql`
      update affiliate_payouts p set updated_at = ${now.toISOString()}::timestamptz,
        amount_cents = (select coalesce(sum(c.amount_cents), 0) from affiliate_commissions c
                        where c.payout_id = p.id and c.clinic_id = p.clinic_id and c.status = 'included')
      where p.id = ${id} and p.clinic_id = ${clinicId}`);
    return readPayout(tx, clinicId, id);
  });
}
