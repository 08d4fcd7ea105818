// The clinic's SMS provider account and its toll-free number (docs/organization.md, "SMS provider").
//   PUT      -> configured (credentials stored; the auth token sealed with AES-GCM, never returned)
//   activate -> active     (a billable toll-free number bought on the account)
//   release  -> released   (the number given back; activate may be called again)
//   DELETE   -> no config  (refused while a number is active: release it first)
import { and, count, eq, gte, isNull, lt, ne, sql } from 'drizzle-orm';
import { clinics, messages, smsConfigs } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import { SEALED } from '../../../../platform/crypto/sealed-values';
import { type KeyRing, open, SecretBoxError, seal } from '../../../../platform/crypto/secret-box';
import type { Queryable } from '../../../../platform/db/client';
import type { SmsProviderName } from '../../../../platform/providers/sms';
import { ERROR_MESSAGES } from '../../../../platform/values/error-messages';
import { ApiError, notFound } from '../../../../platform/values/errors';
import { smsNumbersOf } from '../../providers';
import type { SmsConfigView, SmsStatusView } from './schemas';
import { monthOf, type SmsConfigRow, toSmsConfig, toSmsStatus } from './views';

/** Associated data of the sealed token: a ciphertext copied to another clinic's row does not decrypt. */
const tokenContext = SEALED.smsAuthToken.associatedData;

export const encryptSmsAuthToken = (token: string, clinicId: string, keys: KeyRing) =>
  seal(keys, SEALED.smsAuthToken.purpose, token, tokenContext(clinicId));
export const decryptSmsAuthToken = (ciphertext: string, clinicId: string, keys: KeyRing) =>
  open(keys, SEALED.smsAuthToken.purpose, ciphertext, tokenContext(clinicId));

async function configOf(db: Queryable, clinicId: string, options: { lock?: boolean } = {}): Promise<SmsConfigRow | null> {
  const query = db.select().from(smsConfigs).where(eq(smsConfigs.clinicId, clinicId)).limit(1);
  const [row] = options.lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function getSmsConfig(ctx: HandlerContext, provider: SmsProviderName): Promise<SmsConfigView> {
  return toSmsConfig(provider, await configOf(ctx.db, ctx.clinicId));
}

const numberActive = (row: SmsConfigRow, what: string) =>
  new ApiError(409, 'SMS_NUMBER_ACTIVE', `The toll-free number ${row.phoneNumber} is active; ${what}`);

/**
 * Stores the account. While a number is active only the auth token may change (the same account SID
 * and the active number): another account would orphan the number bought on this one.
 */
export async function putSmsConfig(
  ctx: HandlerContext,
  provider: SmsProviderName,
  body: { accountSid: string; authToken: string; phoneNumber: string },
): Promise<SmsConfigView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const sealed = await encryptSmsAuthToken(body.authToken, clinicId, ctx.config.secretKeys);
  const row = await db.transaction(async (tx) => {
    const existing = await configOf(tx, clinicId, { lock: true });
    if (existing?.status === 'active') {
      if (existing.provider !== provider || existing.accountSid !== body.accountSid || existing.phoneNumber !== body.phoneNumber) {
        throw numberActive(
          existing,
          'while it is, only the auth token may change (same accountSid, phoneNumber the active number); release it first to change the account',
        );
      }
      const [updated] = await tx
        .update(smsConfigs)
        .set({ encryptedAuthToken: sealed, updatedAt: now })
        .where(eq(smsConfigs.clinicId, clinicId))
        .returning();
      return updated!;
    }
    const values = {
      provider,
      accountSid: body.accountSid,
      encryptedAuthToken: sealed,
      phoneNumber: body.phoneNumber,
      providerNumberId: null,
      status: 'configured' as const,
      updatedAt: now,
    };
    const [saved] = await tx
      .insert(smsConfigs)
      .values({ clinicId, ...values, createdAt: now })
      .onConflictDoUpdate({ target: smsConfigs.clinicId, set: values })
      .returning();
    return saved!;
  });
  return toSmsConfig(provider, row);
}

export async function deleteSmsConfig(ctx: HandlerContext, provider: SmsProviderName): Promise<SmsConfigView> {
  const { db, clinicId } = ctx;
  return db.transaction(async (tx) => {
    const existing = await configOf(tx, clinicId, { lock: true });
    if (!existing || existing.provider !== provider) throw notFound('SMS provider config');
    if (existing.status === 'active') throw numberActive(existing, 'release it first with DELETE /api/v1/organization/sms/release');
    await tx.delete(smsConfigs).where(eq(smsConfigs.clinicId, clinicId));
    return toSmsConfig(provider, null);
  });
}

/** GET /organization/sms/status: the config and this month's SMS count, in one query. */
export async function getSmsStatus(ctx: HandlerContext): Promise<SmsStatusView> {
  return readSmsStatus(ctx.db, ctx.clinicId, ctx.now());
}

async function readSmsStatus(db: Queryable, clinicId: string, now: Date): Promise<SmsStatusView> {
  const period = monthOf(now);
  const sent = db
    .select({ n: count() })
    .from(messages)
    .where(
      and(
        eq(messages.clinicId, clinicId),
        eq(messages.channel, 'sms'),
        ne(messages.status, 'failed'),
        gte(messages.createdAt, period.start),
        lt(messages.createdAt, period.end),
      ),
    );
  const [row] = await db
    .select({ config: smsConfigs, sent: sql<number>`(${sent})::int` })
    .from(clinics)
    .leftJoin(smsConfigs, eq(smsConfigs.clinicId, clinics.id))
    .where(eq(clinics.id, clinicId))
    .limit(1);
  return toSmsStatus(row?.config ?? null, row?.sent ?? 0, period);
}

async function accountOf(ctx: HandlerContext, row: SmsConfigRow) {
  try {
    return {
      accountSid: row.accountSid,
      authToken: await decryptSmsAuthToken(row.encryptedAuthToken, row.clinicId, ctx.config.secretKeys),
    };
  } catch (error) {
    if (error instanceof SecretBoxError) {
      throw new ApiError(409, 'SMS_NOT_CONFIGURED', ERROR_MESSAGES.SMS_NOT_CONFIGURED.unreadable);
    }
    throw error;
  }
}

export async function activateSmsNumber(ctx: HandlerContext): Promise<SmsStatusView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await configOf(db, clinicId);
  if (!row) throw new ApiError(409, 'SMS_NOT_CONFIGURED', ERROR_MESSAGES.SMS_NOT_CONFIGURED.none);
  if (row.status === 'active') throw numberActive(row, 'release it before activating another');
  const account = await accountOf(ctx, row);
  const provider = smsNumbersOf(ctx);
  const bought = await provider.provisionTollFreeNumber({ clinicId, account }, { db });
  const [updated] = await db
    .update(smsConfigs)
    .set({
      status: 'active',
      phoneNumber: bought.phoneNumber,
      providerNumberId: bought.providerNumberId,
      activatedAt: now,
      updatedAt: now,
    })
    .where(
      and(
        eq(smsConfigs.clinicId, clinicId),
        eq(smsConfigs.status, row.status),
        eq(smsConfigs.accountSid, row.accountSid),
        isNull(smsConfigs.providerNumberId),
      ),
    )
    .returning({ clinicId: smsConfigs.clinicId });
  if (!updated) {
    // Another request changed the config meanwhile: give the number back rather than leave it billed.
    await provider.releaseNumber({ clinicId, account, providerNumberId: bought.providerNumberId }, { db }).catch(() => {});
    throw new ApiError(
      409,
      'SMS_NUMBER_ACTIVE',
      'The SMS config changed during activation (another activation or a new account); read it again',
    );
  }
  return readSmsStatus(db, clinicId, now);
}

export async function releaseSmsNumber(ctx: HandlerContext): Promise<SmsStatusView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await configOf(db, clinicId);
  if (row?.status !== 'active' || !row.providerNumberId) {
    throw new ApiError(409, 'SMS_NUMBER_NOT_ACTIVE', ERROR_MESSAGES.SMS_NUMBER_NOT_ACTIVE.none);
  }
  const account = await accountOf(ctx, row);
  const provider = smsNumbersOf(ctx);
  await provider.releaseNumber({ clinicId, account, providerNumberId: row.providerNumberId! }, { db });
  const [released] = await db
    .update(smsConfigs)
    .set({ status: 'released', phoneNumber: null, providerNumberId: null, releasedAt: now, updatedAt: now })
    .where(and(eq(smsConfigs.clinicId, clinicId), eq(smsConfigs.status, 'active'), eq(smsConfigs.providerNumberId, row.providerNumberId)))
    .returning({ clinicId: smsConfigs.clinicId });
  // A concurrent release got there first: this one did not release anything.
  if (!released) throw new ApiError(409, 'SMS_NUMBER_NOT_ACTIVE', ERROR_MESSAGES.SMS_NUMBER_NOT_ACTIVE.alreadyReleased);
  return readSmsStatus(db, clinicId, now);
}
