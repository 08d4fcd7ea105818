// The custom-domain state machine (docs/organization.md, "Custom domain"):
//   start  -> pending_verification (the hostname is registered at the provider; DNS records answered)
//   verify -> verified             (the provider confirms the DNS records and the certificate)
//   finalize -> active             (attached: the storefront answers on the hostname)
//   remove -> removed              (from any state; the hostname is free again, start may be called again)
// One current (not removed) domain per clinic and one per hostname, enforced by partial unique indexes.
import { and, eq, ne } from 'drizzle-orm';
import { customDomains } from '../../../../../drizzle/schema';
import type { Queryable, Transaction } from '../../../../platform/db/client';
import { isUniqueViolation } from '../../../../platform/db/errors';
import { ERROR_MESSAGES } from '../../../../platform/http/error-messages';
import { ApiError, notFound } from '../../../../platform/http/errors';
import { type CustomHostnameRecord, platformDomainOf } from '../../../../platform/providers/domains';
import { customHostnamesOf, type OrganizationDeps } from '../../context';
import { fieldError, viaDomainProvider, viaDomainProviderAbout } from '../../organization/errors';
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
export function assertNotPlatformDomain(deps: OrganizationDeps, name: string, field: string): void {
  const platform = platformDomainOf(name, deps.config.domains.platformDomains);
  if (platform) throw fieldError(field, `must not be the platform's own domain ${platform} or a name under it`);
}

const domainExists = (row: CustomDomainRow) =>
  new ApiError(409, 'CUSTOM_DOMAIN_EXISTS', ERROR_MESSAGES.CUSTOM_DOMAIN_EXISTS(row.hostname, row.status));
const hostnameTaken = (hostname: string) => new ApiError(409, 'CONFLICT', `The hostname ${hostname} is already in use by another brand`);

/**
 * Registers `hostname` at the provider and records it (pending_verification). `inTransaction` runs in
 * the same transaction as the insert (PUT /organization/update saves the profile with it). If the
 * insert fails after the provider accepted, the provider's record is removed again.
 */
export async function startCustomDomain(
  deps: OrganizationDeps,
  clinicId: string,
  hostname: string,
  options: { field?: string; inTransaction?: (tx: Transaction) => Promise<void> } = {},
): Promise<CustomDomainView> {
  const field = options.field ?? 'body.domain';
  assertNotPlatformDomain(deps, hostname, field);
  const current = await currentCustomDomain(deps.db, clinicId);
  if (current) throw domainExists(current);
  const [taken] = await deps.db
    .select({ id: customDomains.id })
    .from(customDomains)
    .where(and(eq(customDomains.hostname, hostname), ne(customDomains.status, 'removed')))
    .limit(1);
  if (taken) throw hostnameTaken(hostname);

  const provider = await customHostnamesOf(deps);
  const created = await viaDomainProvider('hostname', () => provider.create({ clinicId, hostname }, { db: deps.db, now: deps.now }), field);
  try {
    const row = await deps.db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(customDomains)
        .values({
          clinicId,
          hostname,
          status: 'pending_verification',
          verificationToken: created.verificationToken,
          cnameTarget: created.cnameTarget,
          providerHostnameId: created.providerHostnameId,
          createdAt: deps.now,
          updatedAt: deps.now,
        })
        .returning();
      if (options.inTransaction) await options.inTransaction(tx);
      return inserted!;
    });
    return toCustomDomain(row);
  } catch (error) {
    // Nothing of ours points at the provider's record any more: take it down again.
    await provider
      .remove({ providerHostnameId: created.providerHostnameId, hostname, startedAt: deps.now }, { db: deps.db, now: deps.now })
      .catch(() => {});
    if (isUniqueViolation(error, CLINIC_CURRENT_INDEX)) {
      const raced = await currentCustomDomain(deps.db, clinicId);
      throw raced ? domainExists(raced) : hostnameTaken(hostname);
    }
    if (isUniqueViolation(error)) throw hostnameTaken(hostname);
    throw error;
  }
}

async function requireCurrent(deps: OrganizationDeps, clinicId: string): Promise<CustomDomainRow> {
  const row = await currentCustomDomain(deps.db, clinicId);
  if (!row) throw notFound(RESOURCE);
  return row;
}

/** Moves the row from `from` to the changes, only if it is still in `from`; answers the row as it is now. */
async function transition(
  deps: OrganizationDeps,
  row: CustomDomainRow,
  from: CustomDomainRow['status'],
  changes: Partial<typeof customDomains.$inferInsert>,
): Promise<CustomDomainRow> {
  const [updated] = await deps.db
    .update(customDomains)
    .set({ ...changes, updatedAt: deps.now })
    .where(and(eq(customDomains.id, row.id), eq(customDomains.clinicId, row.clinicId), eq(customDomains.status, from)))
    .returning();
  if (updated) return updated;
  // Another request moved it first: answer what it is now.
  const [now] = await deps.db
    .select()
    .from(customDomains)
    .where(and(eq(customDomains.id, row.id), eq(customDomains.clinicId, row.clinicId)))
    .limit(1);
  return now ?? row;
}

const isStillCurrent = async (deps: OrganizationDeps, row: CustomDomainRow) =>
  (await currentCustomDomain(deps.db, row.clinicId))?.id === row.id;

export async function verifyCustomDomain(deps: OrganizationDeps, clinicId: string) {
  const row = await requireCurrent(deps, clinicId);
  if (row.status !== 'pending_verification') return { domain: toCustomDomain(row), verified: true, problems: [] as string[] };
  const provider = await customHostnamesOf(deps, row.providerHostnameId);
  const check = await viaDomainProviderAbout(
    'hostname',
    () => isStillCurrent(deps, row),
    () => provider.check(recordOf(row), { db: deps.db, now: deps.now }),
  );
  if (!check.verified) return { domain: toCustomDomain(row), verified: false, problems: check.problems };
  const updated = await transition(deps, row, 'pending_verification', { status: 'verified', verifiedAt: deps.now });
  return {
    domain: toCustomDomain(updated),
    verified: updated.status !== 'pending_verification' && updated.status !== 'removed',
    problems: [] as string[],
  };
}

export async function finalizeCustomDomain(deps: OrganizationDeps, clinicId: string): Promise<CustomDomainView> {
  const row = await requireCurrent(deps, clinicId);
  if (row.status === 'active') return toCustomDomain(row);
  if (row.status === 'pending_verification') {
    throw new ApiError(409, 'CUSTOM_DOMAIN_NOT_VERIFIED', ERROR_MESSAGES.CUSTOM_DOMAIN_NOT_VERIFIED(row.hostname));
  }
  const provider = await customHostnamesOf(deps, row.providerHostnameId);
  const check = await viaDomainProviderAbout(
    'hostname',
    () => isStillCurrent(deps, row),
    () => provider.attach(recordOf(row), { db: deps.db, now: deps.now }),
  );
  if (!check.verified) {
    // It stopped validating since verify (DNS changed, certificate revoked): back to pending.
    await transition(deps, row, 'verified', { status: 'pending_verification', verifiedAt: null });
    throw new ApiError(
      409,
      'CUSTOM_DOMAIN_NOT_VERIFIED',
      `The custom domain ${row.hostname} no longer validates (${check.problems.join('; ')}); verify it again`,
    );
  }
  const updated = await transition(deps, row, 'verified', { status: 'active', activatedAt: deps.now });
  if (updated.status !== 'active') {
    throw new ApiError(
      409,
      'CUSTOM_DOMAIN_NOT_VERIFIED',
      `The custom domain ${row.hostname} changed state (${updated.status}) during the request; read it again`,
    );
  }
  return toCustomDomain(updated);
}

export async function removeCustomDomain(deps: OrganizationDeps, clinicId: string): Promise<CustomDomainView> {
  const row = await requireCurrent(deps, clinicId);
  const provider = await customHostnamesOf(deps, row.providerHostnameId);
  await provider.remove(recordOf(row), { db: deps.db, now: deps.now });
  const [updated] = await deps.db
    .update(customDomains)
    .set({ status: 'removed', removedAt: deps.now, updatedAt: deps.now })
    .where(and(eq(customDomains.id, row.id), eq(customDomains.clinicId, clinicId), ne(customDomains.status, 'removed')))
    .returning();
  if (!updated) throw notFound(RESOURCE);
  return toCustomDomain(updated);
}
