import { sign, verify } from 'hono/jwt';
import { USER_ROLES, type UserRole } from '../../../drizzle/schema';
import type { UserPrincipal } from '../context';
import { isUuid } from '../values/ids';

/** Sign-in tokens last 12 hours (the spec leaves the lifetime open). */
export const TOKEN_TTL_SECONDS = 12 * 60 * 60;
export const TOKEN_ISSUER = 'brand-admin-api';
export const TOKEN_AUDIENCE = 'brand-admin';

export async function issueToken(user: UserPrincipal, secret: string, now: Date) {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expiresAt = issuedAt + TOKEN_TTL_SECONDS;
  const token = await sign(
    { sub: user.userId, cid: user.clinicId, role: user.role, iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, iat: issuedAt, exp: expiresAt },
    secret,
    'HS256',
  );
  return { token, expiresAt: new Date(expiresAt * 1000) };
}

const isUserRole = (value: unknown): value is UserRole => (USER_ROLES as readonly unknown[]).includes(value);

/**
 * The token's claims, or null for anything that is not a valid, unexpired token of ours. A token is
 * only ours if it also has the claims issueToken writes: an expiry (hono's verify accepts a token
 * without `exp`), uuids in sub and cid (they go into queries) and a known role — a validly signed
 * token with anything else (a leaked secret, a token of another version) is refused, not queried.
 */
export async function readToken(token: string, secret: string): Promise<UserPrincipal | null> {
  try {
    const claims = await verify(token, secret, { alg: 'HS256', iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE });
    if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) return null;
    const { sub, cid, role } = claims;
    if (typeof sub !== 'string' || !isUuid(sub) || typeof cid !== 'string' || !isUuid(cid) || !isUserRole(role)) return null;
    return { userId: sub, clinicId: cid, role };
  } catch {
    return null;
  }
}
