import { sign, verify } from 'hono/jwt';
import type { UserRole } from '../../../drizzle/schema';
import type { UserPrincipal } from '../context';

/** Sign-in tokens last 12 hours (the spec leaves the lifetime open). */
export const TOKEN_TTL_SECONDS = 12 * 60 * 60;
const ISSUER = 'brand-admin-api';
const AUDIENCE = 'brand-admin';

export async function issueToken(user: UserPrincipal, secret: string, now: Date) {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expiresAt = issuedAt + TOKEN_TTL_SECONDS;
  const token = await sign(
    { sub: user.userId, cid: user.clinicId, role: user.role, iss: ISSUER, aud: AUDIENCE, iat: issuedAt, exp: expiresAt },
    secret,
    'HS256',
  );
  return { token, expiresAt: new Date(expiresAt * 1000) };
}

/** The token's claims, or null for anything that is not a valid, unexpired token of ours. */
export async function readToken(token: string, secret: string): Promise<UserPrincipal | null> {
  try {
    const claims = await verify(token, secret, { alg: 'HS256', iss: ISSUER, aud: AUDIENCE });
    if (typeof claims.sub !== 'string' || typeof claims.cid !== 'string' || typeof claims.role !== 'string') return null;
    return { userId: claims.sub, clinicId: claims.cid, role: claims.role as UserRole };
  } catch {
    return null;
  }
}
