import { and, desc, eq, gt, isNull, lte, or, sql } from 'drizzle-orm';
import { webhookSecrets } from '../../../../drizzle/schema';
import { SEALED } from '../../../platform/crypto/sealed-values';
import { bytesToBase64, type KeyRing, open, seal } from '../../../platform/crypto/secret-box';
import type { Queryable } from '../../../platform/db/client';

/**
 * Webhook signing secrets: generated here, stored encrypted (AES-GCM, the key for this purpose derived
 * from the root secret, bound to the endpoint's id), read back to sign. The current secret has expires_at null;
 * after a rotation the previous one signs too until its expires_at (the grace period).
 */

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** whsec_ followed by base64 of 32 random bytes (Standard Webhooks' shape: the part after the prefix decodes to the HMAC key). */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + bytesToBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** The associated data that ties a ciphertext to its endpoint: moved to another row, it no longer decrypts. */
const context = SEALED.webhookSigningSecret.associatedData;

export function encryptSigningSecret(secret: string, endpointId: string, key: KeyRing): Promise<string> {
  return seal(key, SEALED.webhookSigningSecret.purpose, secret, context(endpointId));
}

/** Stores a new current secret for the endpoint (call inside the transaction that creates or rotates it). */
export async function insertSigningSecret(tx: Queryable, clinicId: string, endpointId: string, key: KeyRing, now: Date): Promise<string> {
  const secret = generateSigningSecret();
  await tx.insert(webhookSecrets).values({
    clinicId,
    endpointId,
    encryptedSecret: await encryptSigningSecret(secret, endpointId, key),
    expiresAt: null,
    createdAt: now,
  });
  return secret;
}

/**
 * Ends the current secret's sole reign: it (and any older one still in its grace period) now expires
 * at `until` at the latest; secrets already expired are deleted. Returns the previous current
 * secret's new expiry, or null when there was none.
 */
export async function retireCurrentSecrets(
  tx: Queryable,
  clinicId: string,
  endpointId: string,
  now: Date,
  until: Date,
): Promise<Date | null> {
  const scope = and(eq(webhookSecrets.clinicId, clinicId), eq(webhookSecrets.endpointId, endpointId));
  await tx.delete(webhookSecrets).where(and(scope, lte(webhookSecrets.expiresAt, now)));
  const retired = await tx
    .update(webhookSecrets)
    .set({
      expiresAt: sql`least(coalesce(${webhookSecrets.expiresAt}, ${until.toISOString()}::timestamptz), ${until.toISOString()}::timestamptz)`,
    })
    .where(scope)
    .returning({ expiresAt: webhookSecrets.expiresAt });
  return retired.length ? until : null;
}

/**
 * The plaintext secrets that sign a delivery made at `now`, newest first: the current one, then any
 * previous one whose grace period has not ended (expires_at > now). One query. `key` is the
 * configuration's secretKeys. An endpoint of another clinic yields [].
 */
export async function activeSigningSecrets(
  db: Queryable,
  clinicId: string,
  endpointId: string,
  now: Date,
  key: KeyRing,
): Promise<string[]> {
  const rows = await db
    .select({ encryptedSecret: webhookSecrets.encryptedSecret })
    .from(webhookSecrets)
    .where(
      and(
        eq(webhookSecrets.clinicId, clinicId),
        eq(webhookSecrets.endpointId, endpointId),
        or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, now)),
      ),
    )
    .orderBy(sql`${webhookSecrets.expiresAt} is null desc`, desc(webhookSecrets.createdAt), desc(webhookSecrets.id));
  return Promise.all(rows.map((row) => open(key, SEALED.webhookSigningSecret.purpose, row.encryptedSecret, context(endpointId))));
}

/**
 * activeSigningSecrets with the encryption key bound: the (db, clinicId, endpointId, now) function the
 * delivery engine takes. `signingSecretsFor(services.config.secretKeys)`.
 */
export const signingSecretsFor =
  (key: KeyRing) =>
  (db: Queryable, clinicId: string, endpointId: string, now: Date): Promise<string[]> =>
    activeSigningSecrets(db, clinicId, endpointId, now, key);
