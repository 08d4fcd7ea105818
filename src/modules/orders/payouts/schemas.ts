import { z } from '@hono/zod-openapi';
import { DISPUTE_STATUSES, LEDGER_ENTRY_TYPES, PAYOUT_STATUSES, PAYOUT_TYPES } from '../../../../drizzle/schema';
import { timestamp } from '../../../platform/values/fields';
import { amount } from '../../../platform/values/money';

const money = (description: string) => z.number().openapi({ description: `${description} US dollars.`, example: 125.5 });

export const payoutRow = z
  .object({
    id: z.string().uuid(),
    type: z
      .enum(PAYOUT_TYPES)
      .openapi({ description: "order_transfer (one order's brand amount) or withdrawal (POST /payouts/withdraw).", example: 'withdrawal' }),
    orderId: z.string().uuid().nullable(),
    orderNumber: z.string().nullable(),
    amount: money('What was paid out,'),
    totalAmount: z.number().nullable().openapi({ description: "The order's total in US dollars; null for withdrawals." }),
    date: timestamp().openapi({ description: 'When the payout was created.' }),
    status: z.enum(PAYOUT_STATUSES).openapi({ example: 'paid' }),
    processorTransferId: z.string().nullable().openapi({ description: "The payment processor's transfer id (tr_...)." }),
    customer: z
      .object({ name: z.string(), email: z.string() })
      .nullable()
      .openapi({ description: "The order's patient; null for withdrawals." }),
  })
  .openapi('PayoutRow');
export type PayoutRowData = z.infer<typeof payoutRow>;

export const activityEntry = z
  .object({
    id: z.number().int(),
    type: z.enum(LEDGER_ENTRY_TYPES).openapi({ example: 'charge' }),
    amount: z.number().openapi({ description: "Signed US dollars from the clinic's point of view (credit > 0)." }),
    orderId: z.string().uuid().nullable(),
    payoutId: z.string().uuid().nullable(),
    refundId: z.string().uuid().nullable(),
    disputeId: z.string().uuid().nullable(),
    description: z.string().nullable(),
    createdAt: timestamp(),
  })
  .openapi('LedgerActivity');

export const balanceBody = z
  .object({
    balance: z.object({
      totalReceived: money('Net earnings credited by orders (charges less pharmacy, doctor, processor and platform fees),'),
      totalWithdrawn: money('Everything paid out (withdrawals and order transfers),'),
      currentBalance: money('What the platform holds for the clinic: the available balance plus the reserve held,'),
      lastUpdated: timestamp().nullable().openapi({ description: 'The latest ledger entry; null without any.' }),
    }),
    processorBalance: z.object({ available: money('At the processor, available:'), pending: money('At the processor, pending:') }),
    withdrawable: money('What POST /payouts/withdraw may take now (never negative),'),
    reserve: z.object({
      totalHeld: money('Ever held in reserve,'),
      totalReleased: money('Released back to the balance,'),
      totalForfeited: money('Kept by the platform,'),
      heldCount: z.number().int().openapi({ description: 'Reserve holds not yet released or forfeited.' }),
    }),
    heldBalance: z.object({
      heldOwed: money('Owed to the clinic but held because no payout account is connected,'),
      hasHeldBalance: z.boolean(),
      isConnected: z.boolean().openapi({ description: 'Whether withdrawals can reach a payout account.' }),
    }),
    recentActivity: z.array(activityEntry).openapi({ description: 'The 10 latest ledger entries, newest first.' }),
  })
  .openapi('Balance');
export type BalanceData = z.infer<typeof balanceBody>;

export const disputeRow = z
  .object({
    id: z.string().uuid(),
    orderId: z.string().uuid(),
    orderNumber: z.string(),
    amount: money('Disputed,'),
    status: z.enum(DISPUTE_STATUSES).openapi({ example: 'needs_response' }),
    reason: z.string().nullable(),
    evidenceDueAt: timestamp().nullable(),
    resolvedAt: timestamp().nullable(),
    createdAt: timestamp(),
  })
  .openapi('Dispute');

export const disputesBody = z
  .object({
    summary: z.object({
      total: z.number().int(),
      open: z.number().int().openapi({ description: 'needs_response + under_review.' }),
      needsResponse: z.number().int(),
      underReview: z.number().int(),
      won: z.number().int(),
      lost: z.number().int(),
      amountAtRisk: money('Disputed in open disputes,'),
      amountLost: money('Lost in lost disputes,'),
    }),
    history: z.array(disputeRow).openapi({ description: 'The 100 latest disputes, newest first.' }),
  })
  .openapi('Disputes');
export type DisputesData = z.infer<typeof disputesBody>;

export const withdrawBody = z
  .object({
    amount: amount({ positive: true }).openapi({
      type: 'number',
      description: 'US dollars, > 0, at most two decimals, at most the withdrawable balance.',
      example: 250,
    }),
  })
  .strict()
  .openapi('WithdrawRequest');

export const withdrawResult = z.object({ payout: payoutRow, withdrawable: money('What is left to withdraw,') }).openapi('WithdrawResult');
