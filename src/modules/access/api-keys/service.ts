import { and, desc, eq, gt, isNull, or } from 'drizzle-orm';
import { apiKeys, type KeyKind, type KeyScope } from '../../../../drizzle/schema';
import { generateApiKey } from '../../../platform/auth/api-key-format';
import type { Database, Queryable } from '../../../platform/db/client';
import { lockClinic } from '../../../platform/db/clinic-lock';
import { forClinic } from '../../../platform/db/scoped';
import { isoOrNull } from '../../../platform/http/dates';
import { badRequest, conflict, notFound, unauthorized } from '../../../platform/http/errors';
import { isUuid } from '../../../platform/http/ids';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { SANDBOX_MINUTE_LIMIT } from '../../../platform/rate-limit/policy';
import { type CreateKeyBody, DEFAULT_ROLL_OVERLAP_SECONDS, type KeyMetadata, type RollKeyBody } from './schemas';

export const MAX_ACTIVE_KEYS = 5;
const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

type KeyRow = typeof apiKeys.$inferSelect;

const metadataColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  kind: apiKeys.kind,
  keyPrefix: apiKeys.keyPrefix,
  scopes: apiKeys.scopes,
  isSandbox: apiKeys.isSandbox,
  rateLimitPerMin: apiKeys.rateLimitPerMin,
  createdAt: apiKeys.createdAt,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
  rolledToKeyId: apiKeys.rolledToKeyId,
};

/**
 * The key's metadata, field by field: a response is built from this list only, never by spreading a
 * row (which would carry keyHash, clinicId and createdByUserId to the caller).
 */
export function toMetadata(row: Pick<KeyRow, keyof typeof metadataColumns>): KeyMetadata {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    keyPrefix: row.keyPrefix,
    scopes: row.scopes,
    isSandbox: row.isSandbox,
    rateLimitPerMin: row.rateLimitPerMin,
    createdAt: row.createdAt.toISOString(),
    expiresAt: isoOrNull(row.expiresAt),
    lastUsedAt: isoOrNull(row.lastUsedAt),
    revokedAt: isoOrNull(row.revokedAt),
    rolledToKeyId: row.rolledToKeyId,
  };
}

function scopesFor(kind: KeyKind, requested: KeyScope[] | undefined): KeyScope[] {
  if (kind === 'publishable') return ['read', 'write'];
  if (kind === 'ai_connector') return ['read'];
  return [...new Set(requested ?? ['read'])].sort() as KeyScope[];
}

function expiryFor(requested: string | null | undefined, now: Date): Date | null {
  if (requested === null) return null;
  if (requested === undefined) return new Date(now.getTime() + ONE_YEAR_MS);
  const expiresAt = new Date(requested);
  if (expiresAt.getTime() <= now.getTime()) throw badRequest('body.expiresAt: must be in the future');
  return expiresAt;
}

const activeKeyCondition = (now: Date) => and(isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)));
/** What the five-key cap counts: active keys, a rolled key and its successor counting as one. */
const countedKeyCondition = (now: Date) => and(activeKeyCondition(now), isNull(apiKeys.rolledToKeyId));

/** Locks the clinic row (serialising key creations and rolls) and says whether it is a sandbox. */
async function lockKeysOf(tx: Queryable, clinicId: string): Promise<{ isSandbox: boolean }> {
  const clinic = await lockClinic(tx, clinicId);
  if (!clinic) throw unauthorized('Invalid or missing bearer token');
  return { isSandbox: clinic.mode === 'sandbox' };
}

/**
 * Creates a key. The clinic row is locked first so two concurrent creations cannot both pass the
 * five-active-keys check.
 */
export async function createApiKey(db: Database, clinicId: string, userId: string, input: CreateKeyBody, now: Date) {
  const expiresAt = expiryFor(input.expiresAt, now);
  return db.transaction(async (tx) => {
    const { isSandbox } = await lockKeysOf(tx, clinicId);
    if (isSandbox && input.rateLimitPerMin && input.rateLimitPerMin > SANDBOX_MINUTE_LIMIT) {
      throw badRequest(`body.rateLimitPerMin: sandbox keys allow at most ${SANDBOX_MINUTE_LIMIT} per minute`);
    }
    const scoped = forClinic(tx, clinicId);
    if ((await scoped.count(apiKeys, countedKeyCondition(now))) >= MAX_ACTIVE_KEYS) {
      throw conflict('ACTIVE_KEY_LIMIT_REACHED', `A brand may have at most ${MAX_ACTIVE_KEYS} active API keys; revoke one first`);
    }
    const key = await generateApiKey(input.kind, isSandbox);
    const row = await scoped.insert(apiKeys, {
      name: input.name,
      kind: input.kind,
      keyPrefix: key.keyPrefix,
      keyHash: key.keyHash,
      scopes: scopesFor(input.kind, input.scopes),
      isSandbox,
      rateLimitPerMin: input.rateLimitPerMin ?? null,
      createdByUserId: userId,
      expiresAt,
    });
    return { ...toMetadata(row), apiKey: key.raw };
  });
}

/** Newest first; revoked and expired keys included so their history stays visible. */
export async function listApiKeys(db: Database, clinicId: string, query: PageQuery) {
  const scoped = forClinic(db, clinicId);
  const rows = await db
    .select({ ...metadataColumns, total: totalCount() })
    .from(apiKeys)
    .where(scoped.where(apiKeys))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => scoped.count(apiKeys));
  return { data: page.rows.map(toMetadata), pagination: page.pagination };
}

/**
 * Revokes at once. The update only touches a key that is not revoked yet, so of two concurrent
 * revocations the first one's revokedAt stays; the other (and any later one) changes nothing and
 * answers the key's metadata as it is.
 */
export async function revokeApiKey(db: Database, clinicId: string, id: string, now: Date) {
  const scoped = forClinic(db, clinicId);
  if (!isUuid(id)) throw notFound('API key');
  const [revoked] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(scoped.where(apiKeys, eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning(metadataColumns);
  if (revoked) return toMetadata(revoked);
  // Already revoked (or unknown / another clinic's: 404).
  return toMetadata(await scoped.findById(apiKeys, id, 'API key'));
}

/**
 * Rolls a key: a new key with the same name, kind, scopes, sandbox flag and per-minute limit (its raw
 * value answered once), and the old key ends at now + expiresInSeconds (never later than it would
 * have anyway), pointing at its successor. The pair counts as one against the five-key cap. The new
 * key lives as long as the old one was meant to from its creation (a key that never expires gives a
 * key that never expires). Only an active key that was not rolled already can be rolled (409
 * otherwise: roll its successor instead); another clinic's or an unknown id answers 404.
 */
export async function rollApiKey(db: Database, clinicId: string, userId: string, id: string, input: RollKeyBody, now: Date) {
  if (!isUuid(id)) throw notFound('API key');
  return db.transaction(async (tx) => {
    await lockKeysOf(tx, clinicId);
    const scoped = forClinic(tx, clinicId);
    const old = await scoped.findById(apiKeys, id, 'API key');
    const active = !old.revokedAt && (!old.expiresAt || old.expiresAt.getTime() > now.getTime());
    if (!active) throw conflict('CONFLICT', 'Only an active key can be rolled; this one is revoked or expired');
    if (old.rolledToKeyId) throw conflict('CONFLICT', 'This key was already rolled; roll the key that replaced it instead');

    const overlapMs = (input.expiresInSeconds ?? DEFAULT_ROLL_OVERLAP_SECONDS) * 1000;
    const oldEnds = new Date(Math.min(now.getTime() + overlapMs, old.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY));
    const lifetimeMs = old.expiresAt ? old.expiresAt.getTime() - old.createdAt.getTime() : null;
    const key = await generateApiKey(old.kind, old.isSandbox);
    const successor = await scoped.insert(apiKeys, {
      name: old.name,
      kind: old.kind,
      keyPrefix: key.keyPrefix,
      keyHash: key.keyHash,
      scopes: old.scopes,
      isSandbox: old.isSandbox,
      rateLimitPerMin: old.rateLimitPerMin,
      createdByUserId: userId,
      createdAt: now,
      expiresAt: lifetimeMs === null ? null : new Date(now.getTime() + lifetimeMs),
    });
    const [previous] = await tx
      .update(apiKeys)
      .set({ expiresAt: oldEnds, rolledToKeyId: successor.id })
      .where(scoped.where(apiKeys, eq(apiKeys.id, old.id)))
      .returning(metadataColumns);
    return { ...toMetadata(successor), apiKey: key.raw, previousKey: toMetadata(previous!) };
  });
}
