import { eq } from 'drizzle-orm';
import { type ClinicMode, clinics } from '../../../drizzle/schema';
import type { Queryable } from './client';

/**
 * The per-clinic lock of writes that must not run twice at once (spending the balance, the five-key
 * and endpoint caps, rolling a key), held until the transaction ends: the clinic's row FOR NO KEY
 * UPDATE. Holders still wait for each other, but not the many writes that merely reference the clinic:
 * every foreign key to clinics takes FOR KEY SHARE on its row (orders, ledger entries, the request
 * log), which FOR UPDATE would block until commit. With FOR UPDATE, a key roll deadlocked with the
 * request-log batch (which updates the key's last_used_at, then checks its clinic foreign key, while
 * the roll held the clinic and then updated the same key). Answers the clinic's mode; undefined when
 * there is no such clinic.
 */
export async function lockClinic(tx: Queryable, clinicId: string): Promise<{ mode: ClinicMode } | undefined> {
  const [clinic] = await tx.select({ mode: clinics.mode }).from(clinics).where(eq(clinics.id, clinicId)).for('no key update');
  return clinic;
}
