// Idempotency-Key on the writes of /api/v1 (docs/api-conventions.md, "Idempotent requests"), with
// Stripe's semantics: the first request with a key runs and its answer is kept 24 hours for the
// clinic; a retry of the same request gets that answer again (Idempotent-Replayed: true) and runs
// nothing; the key on a different request is 422; a retry while the first still runs is 409; a 5xx
// is not kept, so its retry runs again.
//
// Kept in PostgreSQL, not Redis: the record must outlive a Redis eviction or a limiter outage (a lost
// record would run a payment-grade write twice), development has no Redis, and one indexed row per key
// costs one statement to claim and one to store the answer.
import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';
import { idempotencyKeys } from '../../../drizzle/schema';
import type { AppEnv } from '../context';
import { sha256Hex, toHex } from '../crypto/bytes';
import { SEALED } from '../crypto/sealed-values';
import { open, seal } from '../crypto/secret-box';
import type { Database } from '../db/client';
import { classifyDatabaseError } from '../db/errors';
import type { Sweep } from '../sweep';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError, badRequest, conflict } from '../values/errors';

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

/**
 * Keeping the answer and freeing the key are single statements that may safely run twice. When the
 * connection is lost at that moment (a restart, a failover, a network blip), the statement is tried
 * once more, on a new connection (openDatabase hands the lost one back at once): without it, a blip
 * after the operation left its key "still being processed" (409) for IDEMPOTENCY_ABANDONED_MS. If the
 * database is still away, the error stands (503) and the key waits to be taken over as abandoned.
 */
async function bookkeeping(statement: () => PromiseLike<unknown>): Promise<void> {
  try {
    await statement();
  } catch (error) {
    if (classifyDatabaseError(error) !== 'unavailable') throw error;
    await statement();
  }
}

/** Takes the key for this request, or (when another request holds or held it) answers nothing. */
async function claim(db: Database, clinicId: string, keyHash: string, requestHash: string, now: Date): Promise<string | null> {
  const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
  const [row] = await db
    .insert(idempotencyKeys)
    .values({ clinicId, keyHash, requestHash, state: 'running', createdAt: now, expiresAt })
    .onConflictDoUpdate({
      target: [idempotencyKeys.clinicId, idempotencyKeys.keyHash],
      set: { requestHash, state: 'running', responseStatus: null, sealedResponse: null, createdAt: now, expiresAt },
      // Only an expired record, or a first request abandoned mid-way, is taken over.
      setWhere: or(
        lt(idempotencyKeys.expiresAt, now),
        and(eq(idempotencyKeys.state, 'running'), lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_ABANDONED_MS))),
      ),
    })
    .returning({ id: idempotencyKeys.id });
  return row?.id ?? null;
}

/**
 * The middleware, placed by defineRoute after the access guard of every key-authenticated write (the
 * clinic is the calling key's), before validation: a request refused for its input is kept too, as
 * the same request would be refused the same way.
 */
export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return next();
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !KEY_PATTERN.test(key)) {
    throw badRequest(`Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`);
  }
  const { db, now, config } = c.get('services');
  const { clinicId } = c.get('apiKey');
  const url = new URL(c.req.url);
  // A copy of the body, read up to the largest limit: the request's own stream stays unread for the
  // route's body limit and parser. A body past that is left to the limit (413, never kept).
  const body = await readCopy(c.req.raw, MAX_HASHED_BODY_BYTES);
  if (body === null) return next();
  const [keyHash, requestHash] = await Promise.all([sha256Hex(key), hashRequest(`${c.req.method} ${url.pathname}${url.search}\n`, body)]);
  const context = SEALED.idempotencyAnswer.associatedData(clinicId, keyHash);

  const at = now();
  const id = await claim(db, clinicId, keyHash, requestHash, at);
  if (!id) {
    const [kept] = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.clinicId, clinicId), eq(idempotencyKeys.keyHash, keyHash)));
    // Gone between the two statements (a 5xx released it): the client may simply retry.
    if (!kept || kept.state === 'running') {
      throw conflict('IDEMPOTENCY_KEY_IN_USE', ERROR_MESSAGES.IDEMPOTENCY_KEY_IN_USE);
    }
    if (kept.requestHash !== requestHash) {
      throw new ApiError(422, 'IDEMPOTENCY_KEY_REUSED', ERROR_MESSAGES.IDEMPOTENCY_KEY_REUSED);
    }
    const answer = JSON.parse(await open(config.secretKeys, SEALED.idempotencyAnswer.purpose, kept.sealedResponse!, context)) as KeptAnswer;
    // Through the context, so the headers this request already has (its own X-Request-Id, the
    // RateLimit-* of its check) are on the replay too: a bare Response would drop them.
    const status = kept.responseStatus!;
    const headers = { ...answer.headers, 'Idempotent-Replayed': 'true' };
    return answer.body === '' ? c.body(null, status as StatusCode, headers) : c.body(answer.body, status as ContentfulStatusCode, headers);
  }

  const release = () =>
    bookkeeping(() => db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.id, id), eq(idempotencyKeys.clinicId, clinicId))));
  try {
    await next();
  } catch (error) {
    // Errors are rendered by the app's handler; a 5xx is not kept either way.
    await release();
    throw error;
  }
  const res = c.res;
  if (res.status >= 500) {
    await release();
    return;
  }
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const answer: KeptAnswer = { headers, body: await res.clone().text() };
  const sealedResponse = await seal(config.secretKeys, SEALED.idempotencyAnswer.purpose, JSON.stringify(answer), context);
  await bookkeeping(() =>
    db
      .update(idempotencyKeys)
      .set({ state: 'done', responseStatus: res.status, sealedResponse })
      .where(and(eq(idempotencyKeys.id, id), eq(idempotencyKeys.clinicId, clinicId))),
  );
};

/** The cron sweep: expired records are deleted (a retry after 24 hours runs as a new request). */
export const idempotencyKeyRetention: Sweep = async function idempotencyKeyRetention(db, now) {
  await db.execute(sql`delete from idempotency_keys where expires_at < ${now.toISOString()}::timestamptz`);
};
