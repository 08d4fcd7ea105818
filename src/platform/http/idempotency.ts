// Idempotency-Key on the writes of /api/v1 (docs/api-conventions.md, "Idempotent requests"), with
// Stripe's semantics: the first request with a key runs and its answer is kept 24 hours for the
// clinic; a retry of the same request gets that answer again (Idempotent-Replayed: true) and runs
// nothing; the key on a different request is 422; a retry while the first still runs is 409; a 5xx
// is not kept, so its retry runs again.
//
// Kept in PostgreSQL, not Redis: the record must outlive a Redis eviction or a limiter outage (a lost
// record would run a payment-grade write twice), development has no Redis, and one indexed row per key
// costs one statement to claim and one to store the answer.
import { and, eq, sql } from 'drizzle-orm';
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';
import { idempotencyKeys } from '../../../drizzle/schema';
import { auditInsert } from '../audit/trail';
import type { AppEnv, Services } from '../context';
import { sha256Hex, toHex } from '../crypto/bytes';
import { SEALED } from '../crypto/sealed-values';
import { open, seal } from '../crypto/secret-box';
import type { Database, Queryable, Transaction } from '../db/client';
import { classifyDatabaseError, databaseErrorState } from '../db/errors';
import { requestTransaction } from '../db/request-transaction';
import { rowsOf } from '../db/sql';
import type { Sweep } from '../sweep';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError, badRequest, conflict } from '../values/errors';
import { admitted, isAdmitted } from './admission';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long an answer is kept for retries. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
/**
 * A first request still marked running after this long died before its answer was kept (the isolate
 * was stopped): a retry then runs again rather than being refused for the rest of the day.
 */
export const IDEMPOTENCY_ABANDONED_MS = 5 * 60_000;
/** The answer's headers that are kept and replayed (the rest describe the transport, not the answer). */
const KEPT_HEADERS = ['content-type', 'cache-control', 'pragma', 'location'];

/** Visible ASCII and spaces, 1..255 characters (UUIDs are the usual choice). */
const KEY_PATTERN = /^[\x20-\x7e]+$/;

/** A key's record as kept in idempotency_keys. */
type KeptRecord = typeof idempotencyKeys.$inferSelect;

interface KeptAnswer {
  headers: Record<string, string>;
  body: string;
}

/** The largest body any route takes (uploads, 10 MB); the request's own limit refuses more. */
const MAX_HASHED_BODY_BYTES = 10 * 1024 * 1024;

/** The body's bytes from a copy of the request, or null past `limit` bytes. */
async function readCopy(request: Request, limit: number): Promise<Uint8Array | null> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.clone().body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Hex SHA-256 of the request line followed by the body's exact bytes. */
async function hashRequest(line: string, body: Uint8Array): Promise<string> {
  const head = new TextEncoder().encode(line);
  const all = new Uint8Array(head.byteLength + body.byteLength);
  all.set(head, 0);
  all.set(body, head.byteLength);
  return toHex(await crypto.subtle.digest('SHA-256', all));
}

/** How long a concurrent duplicate waits for the first request's transaction before it is answered 409. */
export const IDEMPOTENCY_WAIT_MS = 5_000;

/** Thrown inside the transaction to roll it back: the answer is a 5xx, or a thrown refusal (nothing of it is kept). */
class RollBack extends Error {
  constructor() {
    super('idempotency: roll back the transaction');
    this.name = 'RollBack';
  }
}

/**
 * The records a new request may take over on conflict: an expired one, or one a first request left
 * running (kept before claims were transactional). Any other keeps its key.
 */
const takenOver = (now: Date) =>
  sql`idempotency_keys.expires_at < ${now.toISOString()}::timestamptz
    or (idempotency_keys.state = 'running' and idempotency_keys.created_at < ${new Date(now.getTime() - IDEMPOTENCY_ABANDONED_MS).toISOString()}::timestamptz)`;

/**
 * Takes the key for this request inside `tx`, or (when another request holds or held it) answers
 * nothing. A concurrent duplicate's insert waits on the unique index for the first request's
 * transaction; lock_timeout, set for this transaction in the same statement, bounds that wait
 * (55P03, answered 409).
 */
async function claim(tx: Transaction, clinicId: string, keyHash: string, requestHash: string, now: Date): Promise<string | null> {
  const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
  const rows = await rowsOf<{ id: string }>(
    tx,
    sql`
    insert into idempotency_keys (clinic_id, key_hash, request_hash, state, created_at, expires_at)
    select ${clinicId}::uuid, ${keyHash}, ${requestHash}, 'running', ${now.toISOString()}::timestamptz, ${expiresAt.toISOString()}::timestamptz
    from (select set_config('lock_timeout', ${`${IDEMPOTENCY_WAIT_MS}ms`}, true)) as bounded
    where true
    on conflict (clinic_id, key_hash) do update
      set request_hash = excluded.request_hash, state = 'running', response_status = null, sealed_response = null,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where ${takenOver(now)}
    -- The bound is for this wait only: once the row is ours, the handler's own lock waits are unbounded again.
    returning id, set_config('lock_timeout', '0', true) as unbounded`,
  );
  return rows[0]?.id ?? null;
}

const isLockTimeout = (error: unknown) => databaseErrorState(error).code === '55P03';

/**
 * Runs the rest of the request (the handler) with `inside` as its services (the request's transaction
 * as their db), flagged as inside the request's transaction so that the audit trail joins it.
 */
export async function nextInTransaction(c: Context<AppEnv>, next: Next, inside: Services): Promise<void> {
  const services = c.get('services');
  c.set('services', inside);
  c.set('inRequestTransaction', true);
  try {
    await next();
  } finally {
    c.set('services', services);
    c.set('inRequestTransaction', false);
  }
}

/**
 * Whether the request's transaction (this one's, or an audited write's in audit.ts) rolls back once the
 * handler has answered: on a 5xx, and on a refusal the handler threw, unless that refusal keeps the
 * writes before it (keepingWrites in values/errors.ts). A refusal the handler returned commits.
 */
export function rollsBack(c: Context<AppEnv>): boolean {
  if (c.res.status >= 500) return true;
  return c.error !== undefined && !(c.error instanceof ApiError && c.error.keepsWrites);
}

/**
 * The middleware, placed by defineRoute after the access guard of every key-authenticated write (the
 * clinic is the calling key's), before validation: a request refused for its input is kept too, as
 * the same request would be refused the same way.
 *
 * One transaction holds the key's claim, every write of the handler (the request's services carry the
 * transaction as `db`, so `handlerContext(c).db` is it) and the kept answer: a Worker stopped at any
 * point leaves all of it (the retry replays) or none of it (the retry runs once). A provider call made
 * by the handler cannot be rolled back; those calls carry a provider idempotency key derived from the
 * operation (docs/api-conventions.md), so the retry's call returns the first one's result.
 */
export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const request = await idempotentRequest(c);
  if (!request) return next();
  const { db } = c.get('services');
  const { clinicId, keyHash, requestHash, at } = request;

  let kept: KeptRecord | undefined;
  let ran = false;
  try {
    // BEGIN goes with the claim, and the kept answer with COMMIT (request-transaction.ts): three round trips for a write of one statement.
    await requestTransaction(db, async (tx) => {
      const id = await claim(tx, clinicId, keyHash, requestHash, at);
      if (!id) {
        kept = await keptAnswer(tx, clinicId, keyHash);
        return undefined;
      }
      ran = true;
      // The handler's services: the same, with the transaction as the database.
      await nextInTransaction(c, next, Object.assign(Object.create(c.get('services')) as Services, { db: tx as unknown as Database }));
      // A 5xx is not kept; a refusal the handler threw (rendered by the app's error handler) is kept,
      // but none of what it may have written before throwing (unless it keeps them): both roll back.
      if (rollsBack(c)) throw new RollBack();
      await admitted(c); // nothing commits before the rate-limit store lets the request through
      const sealedResponse = await request.seal(c.res);
      const done = tx
        .update(idempotencyKeys)
        .set({ state: 'done', responseStatus: c.res.status, sealedResponse })
        .where(and(eq(idempotencyKeys.id, id), eq(idempotencyKeys.clinicId, clinicId)));
      // The write's audit row (audit.ts) goes in the same statement, a data-modifying WITH: no round trip of its own.
      const audit = c.get('auditEvents');
      return audit?.length ? sql`with audit as (${auditInsert(tx, audit).getSQL()}) ${done.getSQL()}` : done.getSQL();
    });
  } catch (error) {
    if (!ran && isLockTimeout(error)) throw conflict('IDEMPOTENCY_KEY_IN_USE', ERROR_MESSAGES.IDEMPOTENCY_KEY_IN_USE);
    // Rolled back on purpose, or the rollback itself failed (the connection is gone): the answer stands.
    if (error instanceof RollBack || (ran && rollsBack(c) && classifyDatabaseError(error) === 'unavailable')) {
      // A request the store refused keeps nothing: its retry is a new request.
      if (c.res.status < 500 && (await isAdmitted(c))) await keepRefusal(db, request, c.res.status, await request.seal(c.res));
      return;
    }
    // The claim, the answer or the commit failed: nothing is known to be kept; the error handler answers (503).
    throw error;
  }
  if (!ran) return replay(c, request, kept);
};

/**
 * The same header on an operation that changes nothing (a count, a preview): Stripe's semantics, with
 * one statement for the machinery instead of a transaction around the operation. The operation runs
 * first, on its own; its answer is then kept in one statement, unless the key already holds one (a
 * retry, or a duplicate that finished first), which is replayed instead: the operation's own answer is
 * thrown away, and a retry's result does not depend on when it ran. A duplicate running meanwhile
 * runs too (nothing to protect) and both answer the answer kept first.
 */
export const idempotentAnswer: MiddlewareHandler<AppEnv> = async (c, next) => {
  const request = await idempotentRequest(c);
  if (!request) return next();
  await next();
  // A 5xx is not kept (its retry runs again); a request the store refused keeps nothing.
  if (c.res.status >= 500 || !(await isAdmitted(c))) return;
  const { db } = c.get('services');
  const sealedResponse = await request.seal(c.res);
  const { clinicId, keyHash, requestHash, at } = request;
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`
    insert into idempotency_keys (clinic_id, key_hash, request_hash, state, response_status, sealed_response, created_at, expires_at)
    values (${clinicId}::uuid, ${keyHash}, ${requestHash}, 'done', ${c.res.status}::int, ${sealedResponse},
      ${at.toISOString()}::timestamptz, ${new Date(at.getTime() + IDEMPOTENCY_TTL_MS).toISOString()}::timestamptz)
    on conflict (clinic_id, key_hash) do update
      set request_hash = excluded.request_hash, state = 'done', response_status = excluded.response_status,
          sealed_response = excluded.sealed_response, created_at = excluded.created_at, expires_at = excluded.expires_at
      where ${takenOver(at)}
    returning id`,
  );
  if (rows.length > 0) return;
  // The key holds another answer: the first one stands.
  await replayInstead(c, request, await keptAnswer(db, clinicId, keyHash));
};

/** An Idempotency-Key request as the middlewares need it: who, the hashes, the time, and how its answer is sealed. */
interface IdempotentRequest {
  clinicId: string;
  keyHash: string;
  requestHash: string;
  at: Date;
  /** AEAD associated data of the sealed answer. */
  context: string;
  seal(res: Response): Promise<string>;
}

/**
 * The request's Idempotency-Key, checked (400 when malformed), and its request hash; null without a
 * key, or for a body past the largest limit (left to the limit: 413, never kept).
 */
async function idempotentRequest(c: Context<AppEnv>): Promise<IdempotentRequest | null> {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return null;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !KEY_PATTERN.test(key)) {
    throw badRequest(`Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`);
  }
  const { now, config } = c.get('services');
  const { clinicId } = c.get('apiKey');
  const url = new URL(c.req.url);
  // A copy of the body, read up to the largest limit: the request's own stream stays unread for the
  // route's body limit and parser.
  const body = await readCopy(c.req.raw, MAX_HASHED_BODY_BYTES);
  if (body === null) return null;
  const [keyHash, requestHash] = await Promise.all([sha256Hex(key), hashRequest(`${c.req.method} ${url.pathname}${url.search}\n`, body)]);
  const context = SEALED.idempotencyAnswer.associatedData(clinicId, keyHash);
  return {
    clinicId,
    keyHash,
    requestHash,
    at: now(),
    context,
    /** The answer as kept: the headers worth replaying and the body, sealed. */
    async seal(res) {
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = res.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      const answer: KeptAnswer = { headers, body: await res.clone().text() };
      return seal(config.secretKeys, SEALED.idempotencyAnswer.purpose, JSON.stringify(answer), context);
    },
  };
}

async function keptAnswer(db: Queryable, clinicId: string, keyHash: string): Promise<KeptRecord | undefined> {
  const [kept] = await (db as Database)
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.clinicId, clinicId), eq(idempotencyKeys.keyHash, keyHash)));
  return kept;
}

/** The kept answer, to be sent again; 409 while the first still runs, 422 for another request. */
async function keptReply(c: Context<AppEnv>, request: IdempotentRequest, kept: KeptRecord | undefined) {
  // Held by a request that has not committed yet cannot be seen here (the claim waited for it); a
  // record still running is one left by a first request from before claims were transactional.
  if (!kept || kept.state === 'running') {
    throw conflict('IDEMPOTENCY_KEY_IN_USE', ERROR_MESSAGES.IDEMPOTENCY_KEY_IN_USE);
  }
  if (kept.requestHash !== request.requestHash) {
    throw new ApiError(422, 'IDEMPOTENCY_KEY_REUSED', ERROR_MESSAGES.IDEMPOTENCY_KEY_REUSED);
  }
  const { config } = c.get('services');
  const answer = JSON.parse(
    await open(config.secretKeys, SEALED.idempotencyAnswer.purpose, kept.sealedResponse!, request.context),
  ) as KeptAnswer;
  return { status: kept.responseStatus!, body: answer.body, headers: { ...answer.headers, 'Idempotent-Replayed': 'true' } };
}

/**
 * The kept answer again (Idempotent-Replayed: true), before the handler ran. Through the context, so
 * the headers this request already has (its X-Request-Id, the RateLimit-* of its check) are on it too.
 */
async function replay(c: Context<AppEnv>, request: IdempotentRequest, kept: KeptRecord | undefined): Promise<Response> {
  const { status, body, headers } = await keptReply(c, request, kept);
  return body === '' ? c.body(null, status as StatusCode, headers) : c.body(body, status as ContentfulStatusCode, headers);
}

/** The kept answer in place of the one the handler made: the transport's headers of this request stay, the answer's are the kept ones. */
async function replayInstead(c: Context<AppEnv>, request: IdempotentRequest, kept: KeptRecord | undefined): Promise<void> {
  const { status, body, headers } = await keptReply(c, request, kept);
  const merged = new Headers(c.res.headers);
  for (const name of [...KEPT_HEADERS, 'content-length']) merged.delete(name);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  await c.res.body?.cancel().catch(() => {});
  c.res = undefined;
  c.res = new Response(body === '' ? null : body, { status, headers: merged });
}

/**
 * A refusal the handler threw (4xx), kept after its transaction rolled back: one statement of its own.
 * Lost (the Worker stopped first), the retry runs again, which is safe: nothing of the first was kept.
 * A duplicate that claimed the key meanwhile keeps its own answer (do nothing on conflict).
 */
async function keepRefusal(db: Database, request: IdempotentRequest, status: number, sealedResponse: string): Promise<void> {
  const { clinicId, keyHash, requestHash, at: now } = request;
  await db
    .insert(idempotencyKeys)
    .values({
      clinicId,
      keyHash,
      requestHash,
      state: 'done',
      responseStatus: status,
      sealedResponse,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    })
    .onConflictDoNothing()
    .catch((error: unknown) => {
      // Not kept: the retry runs again and is refused the same way.
      if (classifyDatabaseError(error) !== 'unavailable') throw error;
    });
}

/** The cron sweep: expired records are deleted (a retry after 24 hours runs as a new request). */
export const idempotencyKeyRetention: Sweep = async function idempotencyKeyRetention(db, now) {
  await db.execute(sql`delete from idempotency_keys where expires_at < ${now.toISOString()}::timestamptz`);
};
