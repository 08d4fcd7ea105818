// The organization profile and its notification settings (GET /organization, PUT /organization/update)
// and the fee configuration (GET /config/fees). docs/organization.md.
import { and, eq, ne } from 'drizzle-orm';
import { clinicFeeConfigs, clinics, customDomains, emailDomains, organizations, smsConfigs } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import type { SmsProviderName } from '../../../platform/providers/sms';
import { isoOrNull } from '../../../platform/values/dates';
import { notFound } from '../../../platform/values/errors';
import { DEFAULT_DOCTOR_FEE_CENTS, PROCESSOR_FEE_FIXED_CENTS, PROCESSOR_FEE_RATE_PER_MILLE } from '../../orders';
import { currentCustomDomain, startCustomDomain } from '../clinic/custom-domain/service';
import { toCustomDomain } from '../clinic/custom-domain/views';
import { toEmailSender } from '../clinic/email-domain/views';
import type { FeeConfigView, OrganizationSettingsView, UpdateOrganizationBody } from './schemas';

/** The timezone of a clinic that never set one (the column's default). */
export const DEFAULT_TIMEZONE = 'America/New_York';
/** The platform's merchant fee when a clinic has no fee configuration: none (the order fee waterfall's default). */
export const DEFAULT_MERCHANT_FEE_PER_MILLE = 0;

/** GET /organization: one query (clinic, organization row, SMS config, current custom and email domains). */
export async function getOrganization(ctx: HandlerContext): Promise<OrganizationSettingsView> {
  return readOrganization(ctx.db, ctx.clinicId);
}

async function readOrganization(db: Queryable, clinicId: string): Promise<OrganizationSettingsView> {
  const [row] = await db
    .select({
      clinic: { id: clinics.id, name: clinics.name },
      org: organizations,
      sms: smsConfigs,
      domain: customDomains,
      email: emailDomains,
    })
    .from(clinics)
    .leftJoin(organizations, eq(organizations.clinicId, clinics.id))
    .leftJoin(smsConfigs, eq(smsConfigs.clinicId, clinics.id))
    .leftJoin(customDomains, and(eq(customDomains.clinicId, clinics.id), ne(customDomains.status, 'removed')))
    .leftJoin(emailDomains, and(eq(emailDomains.clinicId, clinics.id), ne(emailDomains.status, 'removed')))
    .where(eq(clinics.id, clinicId))
    .limit(1);
  if (!row) throw notFound('Organization');
  const { org, sms, domain, email } = row;
  const sender = toEmailSender(org, email);
  return {
    clinicId: row.clinic.id,
    legalName: org?.legalName ?? null,
    doingBusinessAs: org?.doingBusinessAs ?? null,
    ein: org?.ein ?? null,
    businessType: org?.businessType ?? null,
    stateOfRegistration: org?.stateOfRegistration ?? null,
    phoneNumber: org?.phoneNumber ?? null,
    websiteUrl: org?.websiteUrl ?? null,
    supportEmail: org?.supportEmail ?? null,
    supportPhone: org?.supportPhone ?? null,
    address: {
      line1: org?.addressLine1 ?? null,
      line2: org?.addressLine2 ?? null,
      city: org?.city ?? null,
      state: org?.state ?? null,
      zipCode: org?.zipCode ?? null,
    },
    timezone: org?.timezone ?? DEFAULT_TIMEZONE,
    customDomain: domain ? toCustomDomain(domain) : null,
    notifications: {
      email: {
        senderName: sender.senderName ?? row.clinic.name,
        fromAddress: sender.fromAddress,
        replyTo: sender.replyTo,
        domain: sender.domain,
        domainStatus: sender.domainStatus,
      },
      sms: {
        enabled: sms?.status === 'active',
        provider: sms ? (sms.provider as SmsProviderName) : null,
        status: sms?.status ?? 'not_configured',
        fromNumber: sms?.status === 'active' ? sms.phoneNumber : null,
      },
    },
    updatedAt: isoOrNull(org?.updatedAt),
  };
}

/** The organization columns a body changes (customDomain is not a column). */
function profileChanges(body: UpdateOrganizationBody): Partial<typeof organizations.$inferInsert> {
  const changes: Partial<typeof organizations.$inferInsert> = {};
  const fields = [
    'legalName',
    'doingBusinessAs',
    'websiteUrl',
    'supportEmail',
    'supportPhone',
    'addressLine1',
    'addressLine2',
    'city',
    'state',
    'zipCode',
    'timezone',
  ] as const;
  for (const field of fields) {
    const value = body[field];
    if (value !== undefined) (changes as Record<string, unknown>)[field] = value;
  }
  return changes;
}

async function saveProfile(db: Queryable, clinicId: string, changes: Partial<typeof organizations.$inferInsert>, now: Date) {
  const set = { ...changes, updatedAt: now };
  await db
    .insert(organizations)
    .values({ clinicId, ...set })
    .onConflictDoUpdate({ target: organizations.clinicId, set });
}

/**
 * PUT /organization/update. A customDomain different from the current domain's hostname starts the
 * custom-domain flow, saved in the same transaction as the profile (a refused start changes nothing);
 * the current hostname again is a no-op; another hostname while a domain is current is 409
 * CUSTOM_DOMAIN_EXISTS (remove it first).
 */
export async function updateOrganization(ctx: HandlerContext, body: UpdateOrganizationBody): Promise<OrganizationSettingsView> {
  const { db, clinicId } = ctx;
  const changes = profileChanges(body);
  const hostname = body.customDomain;
  const current = hostname === undefined ? null : await currentCustomDomain(db, clinicId);
  if (hostname !== undefined && current?.hostname !== hostname) {
    // The profile is saved at the instant the custom-domain start reads (one time for the operation).
    await startCustomDomain(ctx, hostname, {
      field: 'body.customDomain',
      inTransaction: (tx, now) => saveProfile(tx, clinicId, changes, now),
    });
  } else {
    await saveProfile(db, clinicId, changes, ctx.now());
  }
  return readOrganization(db, clinicId);
}

const percentOf = (perMille: number) => perMille / 10;

/** GET /config/fees: the clinic's fee configuration, or the platform defaults (one query). */
export async function getFeeConfig(ctx: HandlerContext): Promise<FeeConfigView> {
  const { db, clinicId } = ctx;
  const [row] = await db.select().from(clinicFeeConfigs).where(eq(clinicFeeConfigs.clinicId, clinicId)).limit(1);
  const processorPerMille = row?.processorFeePerMille ?? PROCESSOR_FEE_RATE_PER_MILLE;
  const merchantPerMille = row?.platformFeePerMille ?? DEFAULT_MERCHANT_FEE_PER_MILLE;
  return {
    source: row ? 'clinic' : 'default',
    pharmacy: {
      basis: 'per_product',
      description:
        "Each product's pharmacy cost is its own: pharmacyPrice in GET /api/v1/catalog (the pharmacy's base price of the global product), per unit ordered. There is no clinic-wide pharmacy fee.",
    },
    doctor: { basis: 'per_order', feeCents: row?.doctorFeeCents ?? DEFAULT_DOCTOR_FEE_CENTS },
    processor: {
      basis: 'per_charge',
      percent: percentOf(processorPerMille),
      perMille: processorPerMille,
      fixedCents: row?.processorFeeFixedCents ?? PROCESSOR_FEE_FIXED_CENTS,
    },
    merchant: {
      basis: 'per_charge',
      percent: percentOf(merchantPerMille),
      perMille: merchantPerMille,
      description:
        "The platform's fee on each charge, as a share of the subtotal less discounts; products may also carry a facilitation fee (facilitationFee in the catalog), which is part of their price.",
    },
    updatedAt: isoOrNull(row?.updatedAt),
  };
}
