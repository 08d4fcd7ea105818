// Email-domain authentication (docs/organization.md, "Email domain and sender"):
//   start  -> pending  (registered at the provider; the DNS records to publish are answered and stored)
//   verify -> verified (the provider found the records)
//   remove -> removed  (from pending or verified; start may be called again)
// One current (not removed) email domain per clinic (partial unique index). The sender settings
// (name, local part, reply-to) live on the organization row.
import { and, eq, ne } from 'drizzle-orm';
import { clinics, emailDomains, organizations } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import type { Queryable } from '../../../../platform/db/client';
import { isUniqueViolation } from '../../../../platform/db/errors';
import type { EmailDomainRecord } from '../../../../platform/providers/domains';
import { ERROR_MESSAGES } from '../../../../platform/values/error-messages';
import { ApiError, notFound } from '../../../../platform/values/errors';
import { viaDomainProvider, viaDomainProviderAbout } from '../../organization/errors';
import { emailDomainsOf } from '../../providers';
import { assertNotPlatformDomain } from '../custom-domain/service';
import type { EmailDomainView, EmailSenderView } from './schemas';
import { type EmailDomainRow, emailDomainStatusOf, toEmailDomain, toEmailSender, toStoredDnsRecords } from './views';

const RESOURCE = 'Email domain';

/** The join condition of the clinic's current email domain. */
const currentOf = (clinicIdColumn: typeof clinics.id) => and(eq(emailDomains.clinicId, clinicIdColumn), ne(emailDomains.status, 'removed'));

export async function currentEmailDomain(db: Queryable, clinicId: string): Promise<EmailDomainRow | null> {
  const [row] = await db
    .select()
    .from(emailDomains)
    .where(and(eq(emailDomains.clinicId, clinicId), ne(emailDomains.status, 'removed')))
    .limit(1);
  return row ?? null;
}

const recordOf = (row: EmailDomainRow): EmailDomainRecord => ({
  providerDomainId: row.providerDomainId ?? '',
  domain: row.domain,
  startedAt: row.createdAt,
});

/** GET /clinic/email-domain: one query (the clinic, its sender settings and its current email domain). */
export async function getEmailDomainStatus(ctx: HandlerContext) {
  const { db, clinicId } = ctx;
  const [row] = await db
    .select({ clinicId: clinics.id, org: organizations, domain: emailDomains })
    .from(clinics)
    .leftJoin(organizations, eq(organizations.clinicId, clinics.id))
    .leftJoin(emailDomains, currentOf(clinics.id))
    .where(eq(clinics.id, clinicId))
    .limit(1);
  const domain = row?.domain ?? null;
  return {
    status: emailDomainStatusOf(domain),
    domain: domain ? toEmailDomain(domain) : null,
    sender: toEmailSender(row?.org ?? null, domain),
  };
}

/**
 * PUT /clinic/email-sender: replyTo (null: replies go to the sender) and, when sent, senderName.
 * Creates the organization row when the clinic has none.
 */
export async function updateEmailSender(
  ctx: HandlerContext,
  body: { replyTo: string | null; senderName?: string | null },
): Promise<EmailSenderView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const set: Partial<typeof organizations.$inferInsert> = { emailReplyTo: body.replyTo, updatedAt: now };
  if (body.senderName !== undefined) set.emailSenderName = body.senderName;
  const [org] = await db
    .insert(organizations)
    .values({ clinicId, ...set })
    .onConflictDoUpdate({ target: organizations.clinicId, set })
    .returning();
  return toEmailSender(org!, await currentEmailDomain(db, clinicId));
}

const domainExists = (row: EmailDomainRow) =>
  new ApiError(409, 'EMAIL_DOMAIN_EXISTS', ERROR_MESSAGES.EMAIL_DOMAIN_EXISTS(row.domain, row.status));
const domainTaken = (domain: string) => new ApiError(409, 'CONFLICT', `The domain ${domain} is already in use by another brand`);

export async function startEmailDomain(ctx: HandlerContext, body: { domain: string; fromLocalPart: string }): Promise<EmailDomainView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  assertNotPlatformDomain(ctx, body.domain, 'body.domain');
  const current = await currentEmailDomain(db, clinicId);
  if (current) throw domainExists(current);
  const [taken] = await db
    .select({ id: emailDomains.id })
    .from(emailDomains)
    .where(and(eq(emailDomains.domain, body.domain), ne(emailDomains.status, 'removed')))
    .limit(1);
  if (taken) throw domainTaken(body.domain);

  const provider = await emailDomainsOf(ctx);
  const created = await viaDomainProvider('domain', () => provider.create({ clinicId, domain: body.domain }, { db, now }), 'body.domain');
  try {
    const row = await db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(emailDomains)
        .values({
          clinicId,
          domain: body.domain,
          status: 'pending',
          dnsRecords: toStoredDnsRecords(created.records),
          providerDomainId: created.providerDomainId,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await tx
        .insert(organizations)
        .values({ clinicId, emailSenderLocalPart: body.fromLocalPart, updatedAt: now })
        .onConflictDoUpdate({ target: organizations.clinicId, set: { emailSenderLocalPart: body.fromLocalPart, updatedAt: now } });
      return inserted!;
    });
    return toEmailDomain(row);
  } catch (error) {
    await provider.remove({ providerDomainId: created.providerDomainId, domain: body.domain, startedAt: now }, { db, now }).catch(() => {});
    if (isUniqueViolation(error)) {
      const raced = await currentEmailDomain(db, clinicId);
      throw raced ? domainExists(raced) : domainTaken(body.domain);
    }
    throw error;
  }
}

async function requireCurrent(db: Queryable, clinicId: string): Promise<EmailDomainRow> {
  const row = await currentEmailDomain(db, clinicId);
  if (!row) throw notFound(RESOURCE);
  return row;
}

export async function verifyEmailDomain(ctx: HandlerContext) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await requireCurrent(db, clinicId);
  if (row.status === 'verified') return { domain: toEmailDomain(row), verified: true, problems: [] as string[] };
  const provider = await emailDomainsOf(ctx, row.providerDomainId);
  const stillCurrent = async () => (await currentEmailDomain(db, clinicId))?.id === row.id;
  const check = await viaDomainProviderAbout('domain', stillCurrent, () => provider.verify(recordOf(row), { db, now }));
  if (!check.verified) return { domain: toEmailDomain(row), verified: false, problems: check.problems };
  const [updated] = await db
    .update(emailDomains)
    .set({ status: 'verified', verifiedAt: now, updatedAt: now })
    .where(and(eq(emailDomains.id, row.id), eq(emailDomains.clinicId, clinicId), eq(emailDomains.status, 'pending')))
    .returning();
  const current =
    updated ??
    (
      await db
        .select()
        .from(emailDomains)
        .where(and(eq(emailDomains.id, row.id), eq(emailDomains.clinicId, clinicId)))
        .limit(1)
    )[0] ??
    row;
  return { domain: toEmailDomain(current), verified: current.status === 'verified', problems: [] as string[] };
}

export async function removeEmailDomain(ctx: HandlerContext): Promise<EmailDomainView> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const row = await requireCurrent(db, clinicId);
  const provider = await emailDomainsOf(ctx, row.providerDomainId);
  await provider.remove(recordOf(row), { db, now });
  const [updated] = await db
    .update(emailDomains)
    .set({ status: 'removed', removedAt: now, updatedAt: now })
    .where(and(eq(emailDomains.id, row.id), eq(emailDomains.clinicId, clinicId), ne(emailDomains.status, 'removed')))
    .returning();
  if (!updated) throw notFound(RESOURCE);
  return toEmailDomain(updated);
}
