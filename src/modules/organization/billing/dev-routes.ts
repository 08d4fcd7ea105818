// Development simulator (DEV_SIMULATOR="true" only; src/app.ts answers every /api/v1/_dev path with the
// generic 404 otherwise): POST /api/v1/_dev/payout-account sets the state of the clinic's payout account
// as the processor would report it, creating a development account (acct_dev_...) when the clinic has
// none. Plain Hono, not an API operation: it is not in the OpenAPI document (docs/billing.md).
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { Hono } from 'hono';
import { PAYOUT_ACCOUNT_STATUSES, type PayoutAccountStatus, payoutAccounts } from '../../../../drizzle/schema';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { devSimulatorBody } from '../../../platform/http/dev-simulator';
import { ok } from '../../../platform/http/envelope';
import { validationError } from '../../../platform/http/error-handler';
import { checkKeyAccess } from '../../../platform/http/route';
import { developmentBillingId, type PayoutAccountState } from '../../../platform/providers/billing';
import { safeString } from '../../../platform/values/strings';

const body = z
  .object({
    status: z.enum(PAYOUT_ACCOUNT_STATUSES),
    requirementsDue: z.array(safeString().trim().min(1).max(100)).max(20).optional(),
  })
  .strict();

/** What the processor reports for each status (requirementsDue may be given instead of the default). */
const STATES: Record<PayoutAccountStatus, PayoutAccountState> = {
  not_connected: { status: 'not_connected', chargesEnabled: false, payoutsEnabled: false, detailsSubmitted: false, requirementsDue: [] },
  pending: {
    status: 'pending',
    chargesEnabled: false,
    payoutsEnabled: false,
    detailsSubmitted: false,
    requirementsDue: ['business_profile.url', 'external_account', 'representative.verification.document'],
  },
  restricted: {
    status: 'restricted',
    chargesEnabled: true,
    payoutsEnabled: false,
    detailsSubmitted: true,
    requirementsDue: ['external_account'],
  },
  active: { status: 'active', chargesEnabled: true, payoutsEnabled: true, detailsSubmitted: true, requirementsDue: [] },
};

export function registerPayoutAccountSimulator(app: Hono<AppEnv>) {
  app.post('/api/v1/_dev/payout-account', async (c) => {
    // Plain Hono: the access check defineRoute would make, on the raw key.
    checkKeyAccess(c.get('apiKey'), { auth: 'key', scope: 'write' }, c.req.path);
    const parsed = body.safeParse(await devSimulatorBody(c));
    if (!parsed.success) throw validationError(parsed.error, 'json');
    const ctx = handlerContext(c);
    const state = { ...STATES[parsed.data.status] };
    if (parsed.data.requirementsDue) state.requirementsDue = parsed.data.requirementsDue;
    const at = ctx.now();
    const [row] = await ctx.db
      .insert(payoutAccounts)
      .values({ clinicId: ctx.clinicId, processorAccountId: developmentBillingId('acct'), ...state, statusCheckedAt: null })
      .onConflictDoUpdate({
        target: payoutAccounts.clinicId,
        set: { ...state, updatedAt: at, processorAccountId: sql`${payoutAccounts.processorAccountId}` },
      })
      .returning({ processorAccountId: payoutAccounts.processorAccountId, status: payoutAccounts.status });
    return c.json(ok({ processorAccountId: row!.processorAccountId, status: row!.status }, `Payout account ${row!.status}`), 200);
  });
}
