import { type LedgerEntryType, ledgerEntries } from '../../../../drizzle/schema';
import type { Queryable } from '../../../platform/db/client';

/** One movement of the clinic's money, signed from the clinic's point of view (credit > 0). */
export interface LedgerMovement {
  type: LedgerEntryType;
  amountCents: number;
  orderId?: string | null;
  payoutId?: string | null;
  refundId?: string | null;
  disputeId?: string | null;
  description?: string | null;
  createdAt?: Date;
}

/**
 * The only way money moves: rows appended to ledger_entries (never updated, never deleted). Call it
 * inside the transaction that changes the order, payout or refund the movements belong to.
 */
export async function appendLedgerEntries(tx: Queryable, clinicId: string, movements: LedgerMovement[]): Promise<void> {
  if (movements.length === 0) return;
  for (const movement of movements) {
    if (!Number.isInteger(movement.amountCents)) throw new Error(`ledger amounts are integer cents, not ${movement.amountCents}`);
  }
  await tx.insert(ledgerEntries).values(
    movements.map((m) => ({
      clinicId,
      type: m.type,
      amountCents: m.amountCents,
      orderId: m.orderId ?? null,
      payoutId: m.payoutId ?? null,
      refundId: m.refundId ?? null,
      disputeId: m.disputeId ?? null,
      description: m.description ?? null,
      ...(m.createdAt ? { createdAt: m.createdAt } : {}),
    })),
  );
}
