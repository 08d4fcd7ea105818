// The custom-domain state machine (docs/organization.md, "Custom domain"):
//   start  -> pending_verification (the hostname is registered at the provider; DNS records answered)
//   verify -> verified             (the provider confirms the DNS records and the certificate)
//   finalize -> active             (attached: the storefront answers on the hostname)
//   remove -> removed              (from any state; the hostname is free again, start may be called again)
// One current (not removed) domain per clinic and one per hostname, enforced by partial unique indexes.
import { and, eq, ne } from 'drizzle-orm';
import { customDomains } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { Queryable, Transaction } from '../../../../platform/db/client';
import { isUniqueViolation } from '../../../../platform/db/errors';
import { type CustomHostnameRecord, platformDomainOf } from '../../../../platform/providers/domains';
import { ERROR_MESSAGES } from '../../../../platform/values/error-messages';
import { ApiError, keepingWrites, notFound } from '../../../../platform/values/errors';
import { fieldError, viaDomainProvider, viaDomainProviderAbout } from '../../organization/errors';
import { customHostnamesOf } from '../../providers';
import type { CustomDomainView } from './schemas';
import { type CustomDomainRow, toCustomDomain } from './views';

const RESOURCE = 'Custom domain';
const CLINIC_CURRENT_INDEX = 'custom_domains_clinic_id_current_key';

/** The clinic's current (not removed) custom domain, or null. */
export async function currentCustomDomain(
  db: Queryable,
  clinicId: string,
  options: { lock?: boolean } = {},
): Promise<CustomDomainRow | null> {
  const query = db
    .select()
    .from(customDomains)
    .where(and(eq(customDomains.clinicId, clinicId), ne(customDomains.status, 'removed')))
    .limit(1);
  const [row] = options.lock ? await query.for('update') : await query;
  return row ?? null;
}

const recordOf = (row: CustomDomainRow): CustomHostnameRecord => ({
  providerHostnameId: row.providerHostnameId ?? '',
  hostname: row.hostname,
  startedAt: row.createdAt,
});

/** 400 when the name is one of the platform's own domains (configured per deployment). */
export function assertNotPlatformDomain(ctx: HandlerContext, name: string, field: string): void {
  const platform = platformDomainOf(name, ctx.config.domains.platformDomains);
  if (platform) throw fieldError(field, `must not be the platform's own domain ${platform} or a name under it`);
}

const domainExists = (row: CustomDomainRow) =>
  new ApiError(409, 'CUSTOM_DOMAIN_EXISTS', ERROR_MESSAGES.CUSTOM_DOMAIN_EXISTS(row.hostname, row.status));
const hostnameTaken = (hostname: string) => new ApiError(409, 'CONFLICT', `The hostname ${hostname} is already in use by another brand`);

/**
 * Registers `hostname` at the provider and records it (pending_verification). `inTransaction` runs in
 * the same transaction as the insert, at the same instant (PUT /organization/update saves the profile
 * with it). If the insert fails after the provider accepted, the provider's record is removed again.
 */
export async function startCustomDomain(
  ctx: HandlerContext,
  hostname: string,
  options: { field?: string; inTransaction?: (tx: Transaction, now: Date) => Promise<void> } = {},
): Promise<CustomDomainView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const field = options.field ?? 'body.domain';
  assertNotPlatformDomain(ctx, hostname, field);
  const current = await currentCustomDomain(db, clinicId);
  if (current) throw domainExists(current);
  const [taken] = await db
    .select({ id: customDomains.id })
    .from(customDomains)
    .where(and(eq(customDomains.hostname, hostname), ne(customDomains.status, 'removed')))
    .limit(1);
  if (taken) throw hostnameTaken(hostname);

  const provider = await customHostnamesOf(ctx);
  const created = await viaDomainProvider('hostname', () => provider.create({ clinicId, hostname }, { db, now }), field);
  try {
    const row = await db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(customDomains)
        .values({
          clinicId,
          hostname,
          status: 'pending_verification',
          verificationToken: created.verificationToken,
          cnameTarget: created.cnameTarget,
          providerHostnameId: created.providerHostnameId,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (options.inTransaction) await options.inTransaction(tx, now);
      return inserted!;
    });
    return toCustomDomain(row);
  } catch (error) {
    // Nothing of ours points at the provider's record any more: take it down again.
    await provider.remove({ providerHostnameId: created.providerHostnameId, hostname, startedAt: now }, { db, now }).catch(() => {});
    if (isUniqueViolation(error, CLINIC_CURRENT_INDEX)) {
      const raced = await currentCustomDomain(db, clinicId);
      throw raced ? domainExists(raced) : hostnameTaken(hostname);
    }
    if (isUniqueViolation(error)) throw hostnameTaken(hostname);
    throw error;
  }
}

async function requireCurrent(db: Queryable, clinicId: string): Promise<CustomDomainRow> {
  const row = await currentCustomDomain(db, clinicId);
  if (!row) throw notFound(RESOURCE);
  return row;
}

/** Moves the row from `from` to the changes, only if it is still in `from`; answers the row as it is now. */
async function transition(
  db: Queryable,
  now: Date,
  row: CustomDomainRow,
  from: CustomDomainRow['status'],
  changes: Partial<typeof customDomains.$inferInsert>,
): Promise<CustomDomainRow> {
  const [updated] = await db
    .update(customDomains)
    .set({ ...changes, updatedAt: now })
    .where(and(eq(customDomains.id, row.id), eq(customDomains.clinicId, row.clinicId), eq(customDomains.status, from)))
    .returning();
  if (updated) return updated;
  // Another request moved it first: answer what it is now.
  const [current] = await db
    .select()
    .from(customDomains)
    .where(and(eq(customDomains.id, row.id), eq(customDomains.clinicId, row.clinicId)))
    .limit(1);
  return current ?? row;
}

const isStillCurrent = async (db: Queryable, row: CustomDomainRow) => (await currentCustomDomain(db, row.clinicId))?.id === row.id;

export async function verifyCustomDomain(ctx: HandlerContext) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await requireCurrent(db, clinicId);
  if (row.status !== 'pending_verification') return { domain: toCustomDomain(row), verified: true, problems: [] as string[] };
  const provider = await customHostnamesOf(ctx, row.providerHostnameId);
  const check = await viaDomainProviderAbout(
    'hostname',
    () => isStillCurrent(db, row),
    () => provider.check(recordOf(row), { db, now }),
  );
  if (!check.verified) return { domain: toCustomDomain(row), verified: false, problems: check.problems };
  const updated = await transition(db, now, row, 'pending_verification', { status: 'verified', verifiedAt: now });
  return {
    domain: toCustomDomain(updated),
    verified: updated.status !== 'pending_verification' && updated.status !== 'removed',
    problems: [] as string[],
  };
}

export async function finalizeCustomDomain(ctx: HandlerContext): Promise<CustomDomainView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await requireCurrent(db, clinicId);
  if (row.status === 'active') return toCustomDomain(row);
  if (row.status === 'pending_verification') {
    throw new ApiError(409, 'CUSTOM_DOMAIN_NOT_VERIFIED', ERROR_MESSAGES.CUSTOM_DOMAIN_NOT_VERIFIED(row.hostname));
  }
  const provider = await customHostnamesOf(ctx, row.providerHostnameId);
  const check = await viaDomainProviderAbout(
    'hostname',
    () => isStillCurrent(db, row),
    () => provider.attach(recordOf(row), { db, now }),
  );
  if (!check.verified) {
    // It stopped validating since verify (DNS changed, certificate revoked): back to pending.
    await transition(db, now, row, 'verified', { status: 'pending_verification', verifiedAt: null });
    // The move back to pending stands with the refusal.
    throw keepingWrites(
      new ApiError(
        409,
        'CUSTOM_DOMAIN_NOT_VERIFIED',
        `The custom domain ${row.hostname} no longer validates (${check.problems.join('; ')}); verify it again`,
      ),
    );
  }
  const updated = await transition(db, now, row, 'verified', { status: 'active', activatedAt: now });
  if (updated.status !== 'active') {
    throw new ApiError(
      409,
      'CUSTOM_DOMAIN_NOT_VERIFIED',
      `The custom domain ${row.hostname} changed state (${updated.status}) during the request; read it again`,
    );
  }
  return toCustomDomain(updated);
}

export async function removeCustomDomain(ctx: HandlerContext): Promise<CustomDomainView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await requireCurrent(db, clinicId);
  const provider = await customHostnamesOf(ctx, row.providerHostnameId);
  await provider.remove(recordOf(row), { db, now });
  const [updated] = await db
    .update(customDomains)
    .set({ status: 'removed', removedAt: now, updatedAt: now })
    .where(and(eq(customDomains.id, row.id), eq(customDomains.clinicId, clinicId), ne(customDomains.status, 'removed')))
    .returning();
  if (!updated) throw notFound(RESOURCE);
  return toCustomDomain(updated);
}
