import { and, desc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import { apiKeys, type KeyKind, type KeyScope } from '../../../../drizzle/schema';
import { generateApiKey } from '../../../platform/auth/api-key-format';
import { announceKeyChanges } from '../../../platform/auth/key-cache';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { lockClinic } from '../../../platform/db/clinic-lock';
import { forClinic } from '../../../platform/db/scoped';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { SANDBOX_MINUTE_LIMIT } from '../../../platform/rate-limit/policy';
import { isoOrNull } from '../../../platform/values/dates';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { badRequest, conflict, notFound, unauthorized } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { type CreateKeyBody, DEFAULT_ROLL_OVERLAP_SECONDS, type KeyMetadata, MAX_ROLL_OVERLAP_SECONDS, type RollKeyBody } from './schemas';

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
/**
 * What the five-key cap counts: every key that authenticates, a rolled key in its grace included (the
 * specification: "at most 5 active keys per brand"; a key in grace is active, it answers 200).
 */
const countedKeyCondition = (now: Date) => activeKeyCondition(now);

/**
 * Locks the clinic row (serialising key creations, rolls and revocations), says whether it is a
 * sandbox, and reads the time the write works with: only now, once the lock is held (the one read of
 * ctx.now() of a key write). A write that waited for the lock must see the keys the holder ended
 * "now" as ended; with a time read before the wait, a creation still counted them (409 at four slots).
 */
async function lockKeysOf(tx: Queryable, ctx: HandlerContext): Promise<{ isSandbox: boolean; now: Date }> {
  const clinic = await lockClinic(tx, ctx.clinicId);
  if (!clinic) throw unauthorized(ERROR_MESSAGES.UNAUTHORIZED.bearerToken);
  return { isSandbox: clinic.mode === 'sandbox', now: ctx.now() };
}

/** The signed-in brand admin making the key (key routes take a sign-in token); none for other actors. */
const creatorOf = ({ actor }: HandlerContext) => (actor.kind === 'user' ? actor.userId : null);

/**
 * Creates a key. The clinic row is locked first so two concurrent creations cannot both pass the
 * five-active-keys check.
 */
export async function createApiKey(ctx: HandlerContext, input: CreateKeyBody) {
  const { db, clinicId } = ctx;
  return db.transaction(async (tx) => {
    const { isSandbox, now } = await lockKeysOf(tx, ctx);
    const expiresAt = expiryFor(input.expiresAt, now);
    if (isSandbox && input.rateLimitPerMin && input.rateLimitPerMin > SANDBOX_MINUTE_LIMIT) {
      throw badRequest(`body.rateLimitPerMin: sandbox keys allow at most ${SANDBOX_MINUTE_LIMIT} per minute`);
    }
    const scoped = forClinic(tx, clinicId);
    if ((await scoped.count(apiKeys, countedKeyCondition(now))) >= MAX_ACTIVE_KEYS) {
      throw conflict('ACTIVE_KEY_LIMIT_REACHED', ERROR_MESSAGES.ACTIVE_KEY_LIMIT_REACHED(MAX_ACTIVE_KEYS));
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
      createdByUserId: creatorOf(ctx),
      expiresAt,
    });
    return { ...toMetadata(row), apiKey: key.raw };
  });
}

/** Newest first; revoked and expired keys included so their history stays visible. */
export async function listApiKeys({ db, clinicId }: HandlerContext, query: PageQuery) {
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
 * The key caches' markers (src/platform/auth/key-cache.ts) of the keys a write ended were set before
 * the change committed (inside its transaction); set again after it, best effort, so they outlive
 * every cache entry loaded while it was committing.
 */
function announceAgain(ctx: HandlerContext, keyIds: string[]) {
  if (keyIds.length > 0) ctx.background(announceKeyChanges(ctx, keyIds).catch(() => {}));
}

const isActive = (key: Pick<KeyRow, 'revokedAt' | 'expiresAt'>, now: Date) =>
  !key.revokedAt && (!key.expiresAt || key.expiresAt.getTime() > now.getTime());

/**
 * The key and the keys it was rolled from (its predecessors, back along rolledToKeyId), locked in id
 * order so two writers of overlapping chains cannot deadlock. The walk stops at a key created more
 * than the longest grace ago: it was created by the roll that put its predecessor in grace, so that
 * predecessor (and every earlier one) has ended. 404 when the key is not the clinic's.
 */
async function lockChain(tx: Queryable, clinicId: string, id: string, now: Date) {
  const graceFloor = new Date(now.getTime() - MAX_ROLL_OVERLAP_SECONDS * 1000).toISOString();
  const chain = sql`(with recursive chain (id, created_at) as (
      select id, created_at from ${apiKeys} where id = ${id} and clinic_id = ${clinicId}
      union all
      select k.id, k.created_at from ${apiKeys} k join chain c on k.rolled_to_key_id = c.id
      where k.clinic_id = ${clinicId} and c.created_at > ${graceFloor}::timestamptz
    ) select id from chain)`;
  const rows = await tx
    .select()
    .from(apiKeys)
    .where(forClinic(tx, clinicId).where(apiKeys, inArray(apiKeys.id, chain)))
    .orderBy(apiKeys.id)
    .for('no key update');
  const key = rows.find((row) => row.id === id);
  if (!key) throw notFound('API key');
  return { key, predecessorsInGrace: rows.filter((row) => row.id !== id && isActive(row, now)).map((row) => row.id) };
}

/**
 * Revokes at once, with every predecessor of the key still in grace (a rolled key whose successor is
 * revoked must not work on as a slot of its own). The clinic lock orders it with rolls; a key already
 * revoked keeps its first revokedAt, so of concurrent revocations every caller is answered that one.
 * The markers of the keys it ends are set before the change commits and again after it. Another
 * clinic's or an unknown id answers 404.
 */
export async function revokeApiKey(ctx: HandlerContext, id: string): Promise<KeyMetadata> {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound('API key');
  const { key, ended } = await db.transaction(async (tx) => {
    const { now } = await lockKeysOf(tx, ctx);
    const { key, predecessorsInGrace } = await lockChain(tx, clinicId, id, now);
    const ended = key.revokedAt ? predecessorsInGrace : [key.id, ...predecessorsInGrace];
    if (ended.length === 0) return { key: toMetadata(key), ended };
    await announceKeyChanges(ctx, ended);
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(forClinic(tx, clinicId).where(apiKeys, inArray(apiKeys.id, ended)))
      .returning(metadataColumns);
    return { key: toMetadata(rows.find((row) => row.id === id) ?? key), ended };
  });
  announceAgain(ctx, ended);
  return key;
}

/**
 * Rolls a key: a new key with the same name, kind, scopes, sandbox flag and per-minute limit (its raw
 * value answered once), and the old key ends at now + expiresInSeconds (never later than it would
 * have anyway), pointing at its successor. The old key's own predecessor, if still in grace, ends
 * now: a slot holds at most one key in grace. The old key in grace is active and counts against the
 * five-key cap, so a roll with a grace needs room for it (409 ACTIVE_KEY_LIMIT_REACHED otherwise).
 * The new key lives as long as the old one was meant to from its creation (a key that never expires
 * gives a key that never expires). Only an active key that was not rolled already can be rolled (409
 * otherwise: roll its successor instead); another clinic's or an unknown id answers 404. Markers as
 * in revokeApiKey.
 */
export async function rollApiKey(ctx: HandlerContext, id: string, input: RollKeyBody) {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound('API key');
  const { key, ended } = await db.transaction(async (tx) => {
    const { now } = await lockKeysOf(tx, ctx);
    const scoped = forClinic(tx, clinicId);
    const { key: old, predecessorsInGrace } = await lockChain(tx, clinicId, id, now);
    if (!isActive(old, now)) throw conflict('CONFLICT', 'Only an active key can be rolled; this one is revoked or expired');
    if (old.rolledToKeyId) throw conflict('CONFLICT', 'This key was already rolled; roll the key that replaced it instead');
    const overlapMs = (input.expiresInSeconds ?? DEFAULT_ROLL_OVERLAP_SECONDS) * 1000;
    const oldEnds = new Date(Math.min(now.getTime() + overlapMs, old.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY));
    // With a grace, the old key keeps working beside its successor: one more key that authenticates,
    // so it needs room under the cap (the predecessors ended by this roll make room). Without one
    // (expiresInSeconds 0) the count does not grow and the roll is always possible.
    if (oldEnds.getTime() > now.getTime()) {
      const working = await scoped.count(apiKeys, countedKeyCondition(now));
      if (working - predecessorsInGrace.length + 1 > MAX_ACTIVE_KEYS) {
        throw conflict(
          'ACTIVE_KEY_LIMIT_REACHED',
          `A brand may have at most ${MAX_ACTIVE_KEYS} active API keys, and a key in its grace period counts; roll with expiresInSeconds 0 (the old key ends at once) or revoke a key first`,
        );
      }
    }
    const ended = [old.id, ...predecessorsInGrace];
    await announceKeyChanges(ctx, ended);
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
      createdByUserId: creatorOf(ctx),
      createdAt: now,
      // Never before the old key ends (a clock skew between createdAt and now could make it so): a
      // predecessor in grace must not outlive its successor, or it would be a slot of its own.
      expiresAt: lifetimeMs === null ? null : new Date(Math.max(now.getTime() + lifetimeMs, oldEnds.getTime())),
    });
    const [previous] = await tx
      .update(apiKeys)
      .set({ expiresAt: oldEnds, rolledToKeyId: successor.id })
      .where(scoped.where(apiKeys, eq(apiKeys.id, old.id)))
      .returning(metadataColumns);
    if (predecessorsInGrace.length > 0) {
      await tx
        .update(apiKeys)
        .set({ expiresAt: now })
        .where(scoped.where(apiKeys, inArray(apiKeys.id, predecessorsInGrace)));
    }
    return { key: { ...toMetadata(successor), apiKey: key.raw, previousKey: toMetadata(previous!) }, ended };
  });
  announceAgain(ctx, ended);
  return key;
}
