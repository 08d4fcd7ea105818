import { eq } from 'drizzle-orm';
import { clinics, users } from '../../../../drizzle/schema';
import { issueToken } from '../../../platform/auth/jwt';
import { DECOY_PASSWORD_HASH, verifyPassword } from '../../../platform/auth/password';
import type { Services } from '../../../platform/context';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { unauthorized } from '../../../platform/values/errors';

const SIGN_IN_FAILED = ERROR_MESSAGES.UNAUTHORIZED.signIn;

/** Checks the credentials; every failure is the same 401 and takes about as long. */
export async function signIn(services: Services, email: string, password: string) {
  const { db, config } = services;
  const [user] = await db
    .select({
      id: users.id,
      clinicId: users.clinicId,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      role: users.role,
      passwordHash: users.passwordHash,
      userActive: users.isActive,
      clinicActive: clinics.isActive,
    })
    .from(users)
    .innerJoin(clinics, eq(clinics.id, users.clinicId))
    .where(eq(users.email, email.trim().toLowerCase()))
    .limit(1);
  const passwordOk = await verifyPassword(password, user?.passwordHash ?? DECOY_PASSWORD_HASH);
  if (!user || !passwordOk || !user.userActive || !user.clinicActive) throw unauthorized(SIGN_IN_FAILED);

  const now = services.now();
  services.background(db.update(users).set({ lastSignInAt: now }).where(eq(users.id, user.id)));
  const { token, expiresAt } = await issueToken({ userId: user.id, clinicId: user.clinicId, role: user.role }, config.jwtSecret, now);
  return {
    token,
    expiresAt: expiresAt.toISOString(),
    user: {
      id: user.id,
      clinicId: user.clinicId,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      role: user.role,
    },
  };
}
