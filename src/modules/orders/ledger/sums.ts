import { sql } from 'drizzle-orm';
import type { Queryable } from '../../../platform/db/client';
import { rowsOf } from '../../../platform/db/sql';

// The clinic's money as sums over ledger_entries (docs/payouts-and-refunds.md, "The ledger").
// amount_cents is the effect on the clinic's available money (credit > 0): charges and fees of
// orders, refunds (< 0), payouts (< 0), reserve holds (< 0, moved into the reserve), reserve
// releases (> 0, back), disputes (< 0) and their reversals (> 0). A reserve_forfeit (< 0) is reserve
// money the platform keeps: it left the available money when it was held, so it only shrinks the
// reserve and is not part of the available sum.

/** Order-income types: what the clinic received for its orders (the brand amounts). */
export const ORDER_INCOME_TYPES = ['charge', 'pharmacy_cost', 'doctor_fee', 'processor_fee', 'platform_fee'] as const;

/** The available (withdrawable before clamping at 0) cents, as an SQL expression over ledger_entries rows. */
export const availableSum = sql`coalesce(sum(amount_cents) filter (where type <> 'reserve_forfeit'), 0)::float8`;

/**
 * The clinic's available money in cents (may be negative when refunds or disputes exceeded it).
 * Call it after locking the clinic row inside the transaction that spends from it.
 */
export async function availableCents(tx: Queryable, clinicId: string): Promise<number> {
  const [row] = await rowsOf<{ available: number }>(
    tx,
    sql`select ${availableSum} as available from ledger_entries where clinic_id = ${clinicId}`,
  );
  return Number(row?.available ?? 0);
}
