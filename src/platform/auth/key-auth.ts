import { eq } from 'drizzle-orm';
import { apiKeys, clinics, plans } from '../../../drizzle/schema';
import type { KeyPrincipal, KeyRecord } from '../context';
import type { Queryable } from '../db/client';
import { hashApiKey, isWellFormedApiKey } from './api-key-format';

/**
 * The principal behind a raw x-api-key value, or null when the key is missing, unknown, revoked,
 * expired, belongs to a deactivated clinic, or is a sandbox key whose 30-day window is over.
 * One indexed query (by hash) that also brings the clinic's plan entitlements.
 */
export async function findKeyPrincipal(db: Queryable, raw: string | undefined, now: Date): Promise<KeyPrincipal | null> {
  if (!isWellFormedApiKey(raw)) return null;
  return (await findKeyRecord(db, await hashApiKey(raw), now))?.principal ?? null;
}

/** findKeyPrincipal by the key's hash, with the date until which the key is valid (what the key cache keeps). */
export async function findKeyRecord(db: Queryable, keyHash: string, now: Date): Promise<KeyRecord | null> {
  const [row] = await db
    .select({
      keyId: apiKeys.id,
      clinicId: apiKeys.clinicId,
      keyName: apiKeys.name,
      keyPrefix: apiKeys.keyPrefix,
      kind: apiKeys.kind,
      scopes: apiKeys.scopes,
      isSandbox: apiKeys.isSandbox,
      rateLimitPerMin: apiKeys.rateLimitPerMin,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      clinicActive: clinics.isActive,
      sandboxExpiresAt: clinics.sandboxExpiresAt,
      entitlements: plans.entitlements,
    })
    .from(apiKeys)
    .innerJoin(clinics, eq(clinics.id, apiKeys.clinicId))
    .leftJoin(plans, eq(plans.id, clinics.planId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  if (!row || row.revokedAt || !row.clinicActive) return null;
  if (row.expiresAt && row.expiresAt <= now) return null;
  if (row.isSandbox && (!row.sandboxExpiresAt || row.sandboxExpiresAt <= now)) return null;
  const validUntil = Math.min(
    row.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY,
    row.isSandbox && row.sandboxExpiresAt ? row.sandboxExpiresAt.getTime() : Number.POSITIVE_INFINITY,
  );
  const principal: KeyPrincipal = {
    keyId: row.keyId,
    clinicId: row.clinicId,
    keyName: row.keyName,
    keyPrefix: row.keyPrefix,
    kind: row.kind,
    scopes: row.scopes,
    isSandbox: row.isSandbox,
    rateLimitPerMin: row.rateLimitPerMin,
    entitlements: row.entitlements ?? [],
  };
  return { principal, validUntil };
}
