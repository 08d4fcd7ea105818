import { sql } from 'drizzle-orm';
import { type CheckoutSessionStatus, checkoutSessions } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { randomBytes, sha256Hex, toBase64Url } from '../../../platform/crypto/bytes';
import { forClinic } from '../../../platform/db/scoped';
import { rowsOf } from '../../../platform/db/sql';
import { notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type { CreatedSession, CreateSessionBody, SessionRead } from './schemas';

/** How long a session may be paid for (docs/checkout.md). */
export const SESSION_LIFETIME_MS = 30 * 60 * 1000;
export const SESSION_TOKEN_PREFIX = 'cs_tok_';
/** Used when CHECKOUT_EMBED_BASE_URL is not set (docs/checkout.md). */
export const DEFAULT_CHECKOUT_EMBED_BASE_URL = 'https://checkout.example.com/embed';

/** A new session token: cs_tok_ + 32 random bytes in base64url (43 characters). */
export function generateSessionToken(): string {
  return `${SESSION_TOKEN_PREFIX}${toBase64Url(randomBytes(32))}`;
}

/** The browser's checkout page: the token rides in the fragment, which browsers never send to a server. */
export function embedUrlFor(baseUrl: string | undefined, sessionId: string, token: string): string {
  const base = (baseUrl || DEFAULT_CHECKOUT_EMBED_BASE_URL).replace(/\/+$/, '');
  return `${base}/${sessionId}#token=${token}`;
}

/**
 * The status a caller sees: a session still `created` after its expiresAt reads as `expired` (the row
 * is not rewritten on read; completion refuses it just the same).
 */
export function effectiveStatus(status: CheckoutSessionStatus, expiresAt: Date, now: Date): CheckoutSessionStatus {
  return status === 'created' && expiresAt.getTime() <= now.getTime() ? 'expired' : status;
}

/** An SQL condition: program `id` is one of the clinic's programs on offer (live and active). */
export const offeredProgram = (clinicId: string, programId: string) =>
  sql`select 1 from programs p where p.id = ${programId} and p.clinic_id = ${clinicId} and p.state = 'live' and p.is_active`;

/**
 * Creates a session in one statement: the insert selects from the clinic's offered program, so an
 * unknown, foreign, malformed or not-offered program inserts nothing and answers 404.
 */
export async function createSession(ctx: HandlerContext, input: CreateSessionBody): Promise<CreatedSession> {
  const { db, clinicId, config } = ctx;
  const now = ctx.now();
  if (!isUuid(input.programId)) throw notFound('Program');
  const token = generateSessionToken();
  const tokenHash = await sha256Hex(token);
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  const metadata = JSON.stringify(input.metadata ?? {});
  const [row] = await rowsOf<{ id: string }>(
    db,
    sql`
    insert into checkout_sessions (clinic_id, program_id, token_hash, status, metadata, success_url, expires_at, created_at)
    select ${clinicId}, ${input.programId}, ${tokenHash}, 'created', ${metadata}::jsonb, ${input.successUrl ?? null}, ${expiresAt.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
    where exists (${offeredProgram(clinicId, input.programId)})
    returning id`,
  );
  if (!row) throw notFound('Program');
  return {
    sessionId: row.id,
    sessionToken: token,
    embedUrl: embedUrlFor(config.checkoutEmbedBaseUrl, row.id, token),
    expiresAt: expiresAt.toISOString(),
  };
}

/** One session of the clinic (one query); 404 for unknown, malformed and other-clinic ids. */
export async function getSession(ctx: HandlerContext, id: string): Promise<SessionRead> {
  const now = ctx.now();
  const row = await forClinic(ctx.db, ctx.clinicId).findById(checkoutSessions, id, 'Checkout session');
  return {
    sessionId: row.id,
    status: effectiveStatus(row.status, row.expiresAt, now),
    orderId: row.orderId,
    expiresAt: row.expiresAt.toISOString(),
  };
}
