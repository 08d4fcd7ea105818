// Rows to API payloads, field by field (never a spread row; never a secret).
import type { customDomains, emailDomains, organizations, smsConfigs } from '../../../../drizzle/schema';
import { DNS_RECORD_PURPOSES, DNS_RECORD_TYPES, ownershipTxtName, type DnsRecord } from '../../../platform/providers/domains';
import type { SmsProviderName } from '../../../platform/providers/sms';
import {
  EMAIL_DOMAIN_VIEW_STATUSES, SMS_FREE_TIER_MESSAGES_PER_MONTH,
  type CustomDomainView, type EmailDomainView, type EmailSenderView, type SmsConfigView, type SmsStatusView,
} from './schemas';

export type CustomDomainRow = typeof customDomains.$inferSelect;
export type EmailDomainRow = typeof emailDomains.$inferSelect;
export type SmsConfigRow = typeof smsConfigs.$inferSelect;
export type OrganizationRow = typeof organizations.$inferSelect;

export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function customDomainRecords(row: Pick<CustomDomainRow, 'hostname' | 'cnameTarget' | 'verificationToken'>): DnsRecord[] {
  return [
    { type: 'CNAME', name: row.hostname, value: row.cnameTarget, purpose: 'routing', priority: null },
    { type: 'TXT', name: ownershipTxtName(row.hostname), value: row.verificationToken, purpose: 'ownership_verification', priority: null },
  ];
}

export function toCustomDomain(row: CustomDomainRow): CustomDomainView {
  return {
    id: row.id,
    hostname: row.hostname,
    status: row.status,
    dnsRecords: customDomainRecords(row),
    verifiedAt: iso(row.verifiedAt),
    activatedAt: iso(row.activatedAt),
    removedAt: iso(row.removedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The records stored in email_domains.dns_records, keeping only well-formed ones. */
export function storedDnsRecords(value: unknown): DnsRecord[] {
  if (!Array.isArray(value)) return [];
  const out: DnsRecord[] = [];
  for (const raw of value) {
    if (typeof raw !== 'object' || raw === null) continue;
    const r = raw as Record<string, unknown>;
    if (!(DNS_RECORD_TYPES as readonly unknown[]).includes(r.type) || !(DNS_RECORD_PURPOSES as readonly unknown[]).includes(r.purpose)) continue;
    if (typeof r.name !== 'string' || typeof r.value !== 'string') continue;
    out.push({
      type: r.type as DnsRecord['type'],
      name: r.name,
      value: r.value,
      purpose: r.purpose as DnsRecord['purpose'],
      priority: typeof r.priority === 'number' ? r.priority : null,
    });
  }
  return out;
}

/** What email_domains.dns_records stores (plain objects). */
export const toStoredDnsRecords = (records: DnsRecord[]): Record<string, unknown>[] =>
  records.map((r) => ({ type: r.type, name: r.name, value: r.value, purpose: r.purpose, priority: r.priority }));

export function toEmailDomain(row: EmailDomainRow): EmailDomainView {
  return {
    id: row.id,
    domain: row.domain,
    status: row.status,
    dnsRecords: storedDnsRecords(row.dnsRecords),
    verifiedAt: iso(row.verifiedAt),
    removedAt: iso(row.removedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

type SenderSettings = Pick<OrganizationRow, 'emailSenderName' | 'emailSenderLocalPart' | 'emailReplyTo'> | null;
type DomainStatus = (typeof EMAIL_DOMAIN_VIEW_STATUSES)[number];

export const emailDomainStatusOf = (row: Pick<EmailDomainRow, 'status'> | null): DomainStatus =>
  row && row.status !== 'removed' ? row.status : 'none';

/** The sender settings: the stored ones and what they amount to with the current email domain. */
export function toEmailSender(org: SenderSettings, domain: Pick<EmailDomainRow, 'domain' | 'status'> | null): EmailSenderView {
  const current = domain && domain.status !== 'removed' ? domain : null;
  const localPart = org?.emailSenderLocalPart ?? null;
  return {
    senderName: org?.emailSenderName ?? null,
    fromLocalPart: localPart,
    fromAddress: current?.status === 'verified' && localPart ? `${localPart}@${current.domain}` : null,
    replyTo: org?.emailReplyTo ?? null,
    domain: current?.domain ?? null,
    domainStatus: emailDomainStatusOf(current),
  };
}

export function toSmsConfig(provider: SmsProviderName, row: SmsConfigRow | null): SmsConfigView {
  if (!row || row.provider !== provider) {
    return { provider, configured: false, accountSid: null, phoneNumber: null, status: 'not_configured', activatedAt: null, releasedAt: null, updatedAt: null };
  }
  return {
    provider,
    configured: true,
    accountSid: row.accountSid,
    phoneNumber: row.phoneNumber,
    status: row.status,
    activatedAt: iso(row.activatedAt),
    releasedAt: iso(row.releasedAt),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The calendar month (UTC) `now` is in: [start, end). */
export function monthOf(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

export function toSmsStatus(row: SmsConfigRow | null, sent: number, period: { start: Date; end: Date }): SmsStatusView {
  return {
    provider: row ? (row.provider as SmsProviderName) : null,
    status: row ? row.status : 'not_configured',
    tollFreeNumber: row?.status === 'active' ? row.phoneNumber : null,
    activatedAt: iso(row?.activatedAt),
    releasedAt: iso(row?.releasedAt),
    usage: {
      periodStart: period.start.toISOString(),
      periodEnd: period.end.toISOString(),
      messagesSent: sent,
      freeTierLimit: SMS_FREE_TIER_MESSAGES_PER_MONTH,
      freeTierRemaining: Math.max(0, SMS_FREE_TIER_MESSAGES_PER_MONTH - sent),
      billableMessages: Math.max(0, sent - SMS_FREE_TIER_MESSAGES_PER_MONTH),
    },
  };
}
