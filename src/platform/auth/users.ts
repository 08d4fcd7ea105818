import { and, eq } from 'drizzle-orm';
import { clinics, users } from '../../../drizzle/schema';
import type { UserPrincipal } from '../context';
import type { Queryable } from '../db/client';

/** The token's user as the database has them now, or null if deactivated or their clinic is. */
export async function findActiveUser(db: Queryable, token: UserPrincipal): Promise<UserPrincipal | null> {
  const [row] = await db
    .select({ userId: users.id, clinicId: users.clinicId, role: users.role, email: users.email })
    .from(users)
    .innerJoin(clinics, eq(clinics.id, users.clinicId))
    .where(and(eq(users.id, token.userId), eq(users.clinicId, token.clinicId), eq(users.isActive, true), eq(clinics.isActive, true)))
    .limit(1);
  return row ?? null;
}
