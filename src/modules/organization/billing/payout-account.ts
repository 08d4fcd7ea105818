// GET /stripe/connect/status: the clinic's payout account at the payment processor, cached on its row.
import { eq } from 'drizzle-orm';
import { payoutAccounts } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { describeError, logLine } from '../../../platform/log';
import type { BillingProcessor } from '../../../platform/providers/billing';
import { ProviderError } from '../../../platform/providers/errors';
import { isoOrNull } from '../../../platform/values/dates';
import type { PayoutAccountStatusView } from './schemas';

/** Payout-account values are reused this long before the processor is asked again. */
export const PAYOUT_STATUS_TTL_MS = 5 * 60_000;

type PayoutAccountRow = typeof payoutAccounts.$inferSelect;

function toPayoutStatus(
  row: Pick<PayoutAccountRow, 'status' | 'chargesEnabled' | 'payoutsEnabled' | 'detailsSubmitted' | 'requirementsDue' | 'statusCheckedAt'>,
): PayoutAccountStatusView {
  return {
    status: row.status,
    chargesEnabled: row.chargesEnabled,
    payoutsEnabled: row.payoutsEnabled,
    detailsSubmitted: row.detailsSubmitted,
    requirementsDue: [...row.requirementsDue],
    isConnected: row.status !== 'not_connected',
    checkedAt: isoOrNull(row.statusCheckedAt),
  };
}

const NO_ACCOUNT: PayoutAccountStatusView = {
  status: 'not_connected',
  chargesEnabled: false,
  payoutsEnabled: false,
  detailsSubmitted: false,
  requirementsDue: [],
  isConnected: false,
  checkedAt: null,
};

/**
 * GET /stripe/connect/status. The row is the cache: values read from the processor less than 5 minutes
 * ago (statusCheckedAt) are answered as they are (one query); older ones are refreshed from the
 * processor and written back with the new statusCheckedAt. When the processor cannot answer, the
 * cached values are answered (checkedAt says how old they are) and the failure is logged.
 */
export async function payoutAccountStatus(ctx: HandlerContext): Promise<PayoutAccountStatusView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const [row] = await db.select().from(payoutAccounts).where(eq(payoutAccounts.clinicId, clinicId)).limit(1);
  if (!row) return { ...NO_ACCOUNT, requirementsDue: [] };
  if (row.statusCheckedAt && now.getTime() - row.statusCheckedAt.getTime() < PAYOUT_STATUS_TTL_MS) return toPayoutStatus(row);
  let state: Awaited<ReturnType<BillingProcessor['retrieveAccount']>>;
  try {
    state = await ctx
      .billing({ recordId: row.processorAccountId })
      .retrieveAccount({ clinicId, processorAccountId: row.processorAccountId });
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    logLine('warn', 'payout account status not refreshed; answering the cached values', { clinicId, error: describeError(error) });
    return toPayoutStatus(row);
  }
  const [updated] = await db
    .update(payoutAccounts)
    .set({ ...state, statusCheckedAt: now, updatedAt: now })
    .where(eq(payoutAccounts.clinicId, clinicId))
    .returning();
  return toPayoutStatus(updated ?? { ...row, ...state, statusCheckedAt: now });
}
